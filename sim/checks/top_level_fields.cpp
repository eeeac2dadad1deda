// A SAX handler that skips every value except the named top-level members, which it rebuilds
// with nlohmann's own DOM builder for the subtree (same numbers, strings and duplicate-key rule).
#include "sim/checks/top_level_fields.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace ckpt::sim {
namespace {

using nlohmann::json;

class FieldPicker final : public nlohmann::json_sax<json> {
  public:
    explicit FieldPicker(std::initializer_list<std::string_view> names) : names_(names) {}

    bool top_level_is_object = false;
    std::map<std::string, json, std::less<>> fields;

    bool null() override {
        return scalar([] { return json(nullptr); });
    }
    bool boolean(bool v) override {
        return scalar([v] { return json(v); });
    }
    bool number_integer(number_integer_t v) override {
        return scalar([v] { return json(v); });
    }
    bool number_unsigned(number_unsigned_t v) override {
        return scalar([v] { return json(v); });
    }
    bool number_float(number_float_t v, const string_t& /*s*/) override {
        return scalar([v] { return json(v); });
    }
    bool string(string_t& v) override {
        return scalar([&v] { return json(v); });
    }
    bool binary(binary_t& v) override {
        return scalar([&v] { return json::binary(v); });
    }
    bool start_object(std::size_t /*n*/) override { return open(json::object()); }
    bool end_object() override { return close(); }
    bool start_array(std::size_t /*n*/) override { return open(json::array()); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (depth_ == 1) {
            picking_ = std::find(names_.begin(), names_.end(), k) != names_.end();
            if (picking_) {
                picked_key_ = k;
            }
        } else if (!stack_.empty()) {
            pending_key_ = k;
        }
        return true;
    }
    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const nlohmann::detail::exception& /*error*/) override {
        return false;
    }

  private:
    // Where a value being rebuilt goes: into the open container, or it completes a member.
    void place(json value) {
        if (stack_.empty()) {
            fields[picked_key_] = std::move(value);
            return;
        }
        auto& parent = *stack_.back();
        if (parent.is_object()) {
            parent[pending_key_] = std::move(value);
        } else {
            parent.push_back(std::move(value));
        }
    }
    json* slot_for_container(json value) {
        if (stack_.empty()) {
            auto& slot = fields[picked_key_];
            slot = std::move(value);
            return &slot;
        }
        auto& parent = *stack_.back();
        if (parent.is_object()) {
            auto& slot = parent[pending_key_];
            slot = std::move(value);
            return &slot;
        }
        parent.push_back(std::move(value));
        return &parent.back();
    }
    // Skipped values cost no allocation: the value is made only for a picked member.
    template <typename Make>
    bool scalar(const Make& make) {
        if (building()) {
            place(make());
        }
        return true;
    }
    bool open(json container) {
        if (depth_ == 0) {
            top_level_is_object = container.is_object();
        } else if (building()) {
            stack_.push_back(slot_for_container(std::move(container)));
        }
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        if (!stack_.empty()) {
            stack_.pop_back();
        }
        return true;
    }
    // Inside a picked member: at depth 1 right after its key, or within a container it opened.
    bool building() const { return picking_ && depth_ >= 1 && (depth_ == 1 || !stack_.empty()); }

    std::initializer_list<std::string_view> names_;
    int depth_ = 0;
    bool picking_ = false;
    std::string picked_key_;
    std::string pending_key_;
    std::vector<json*> stack_;
};

}  // namespace

std::optional<std::map<std::string, nlohmann::json, std::less<>>> read_top_level_fields(
    std::string_view text, std::initializer_list<std::string_view> names) {
    FieldPicker picker(names);
    if (!json::sax_parse(text.begin(), text.end(), &picker) || !picker.top_level_is_object) {
        return std::nullopt;
    }
    return std::move(picker.fields);
}

}  // namespace ckpt::sim
