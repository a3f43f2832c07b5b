// Ranking specs inside the engine: the public DecaySpec and BoostSpec
// (engine.h) resolved against a collection's schema into the search layer's
// Ranking (search/ranking.h).
#ifndef ENGRAM_ENGINE_RANKING_H_
#define ENGRAM_ENGINE_RANKING_H_

#include <optional>

#include "base/time.h"
#include "engram/diagnostic.h"
#include "engram/engine.h"
#include "schema/schema.h"
#include "search/ranking.h"

namespace engram::engine {

search::DecayFunction ToInternal(DecayFunction function);

// The ranking `decay` and `boost` ask for (an unset or "off" spec adds
// nothing), measuring age from `now`. A Diagnostic at path "decay" or
// "boost" when the field is not a datetime, or not an int or float field,
// of `schema`. The numbers are assumed checked (ParseDecay, ParseBoost).
Checked<search::Ranking> ResolveRanking(const Schema& schema, const std::optional<DecaySpec>& decay,
                                        const std::optional<BoostSpec>& boost, Datetime now);

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_RANKING_H_
