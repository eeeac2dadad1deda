// What a score equal to the best does to patience, and its parse from the seed's strings. A tie
// never replaces the best; an unknown name is a ValueError with the seed's message.
#pragma once

#include <string_view>

namespace ckpt {

// What an evaluation that exactly equals the retained best does to patience. Equality never
// replaces the best checkpoint: a tie has not earned the cost of a save.
enum class TiePolicy {
    reset,   // a plateau is progress enough: reset the low-score streak (the training default)
    ignore,  // leave the streak as it is
    stop,    // stop at once, without saving
    count,   // count the tie toward patience like a lower score
};

// Trims and lower-cases like the seed; throws ValueError with the seed's message otherwise.
TiePolicy parse_tie_policy(std::string_view text);
std::string_view to_string(TiePolicy policy);

}  // namespace ckpt
