// A RapidCheck range drawn uniformly whatever the size, shrinking toward its lower end.
// RapidCheck's inRange narrows toward the lower end at small sizes, and element generators inside
// a resized container (or a command's values) see that small size; the swarm's choices are uniform
// whatever the size, so generators that match them pin the size to the nominal one.
#pragma once

#include <rapidcheck.h>

namespace ckpt::properties {

// Uniform in [lo, hi), as inRange is.
template <typename T>
rc::Gen<T> uniform(T lo, T hi) {
    return rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

}  // namespace ckpt::properties
