// What the engine's implementation files share and front-ends never see:
// the mapping of public enums to the internal ones.
#ifndef ENGRAM_ENGINE_INTERNAL_H_
#define ENGRAM_ENGINE_INTERNAL_H_

#include "engram/filter.h"
#include "filter/dialects/dialect.h"

namespace engram {

filter::Dialect ToInternal(FilterDialect dialect);

}  // namespace engram

#endif  // ENGRAM_ENGINE_INTERNAL_H_
