// The silent run: RapidCheck's property checker driven directly with a listener that drops
// every report.
#include "properties/support/quiet_check.hpp"

namespace ckpt::properties {
namespace {

class SilentListener final : public rc::detail::TestListener {
  public:
    void onTestCaseFinished(const rc::detail::CaseDescription& /*description*/) override {}
    void onShrinkTried(const rc::detail::CaseDescription& /*shrink*/, bool /*accepted*/) override {}
    void onTestFinished(const rc::detail::TestMetadata& /*metadata*/,
                        const rc::detail::TestResult& /*result*/) override {}
};

}  // namespace

rc::detail::TestResult check_quietly(const std::string& id, int cases, bool shrink,
                                     const std::function<void()>& property) {
    auto params = rc::detail::configuration().testParams;
    params.maxSuccess = cases;
    params.disableShrinking = !shrink;
    rc::detail::TestMetadata metadata;
    metadata.id = id;
    metadata.description = id;
    SilentListener listener;
    return rc::detail::checkProperty(rc::detail::toProperty(property), metadata, params, listener);
}

}  // namespace ckpt::properties
