// Readers of request members that several bodies share (a collection's
// configuration and a search both take fusion, decay and boost), for
// request_decode.cc and collection_decode.cc. Each reads its member from
// `r` when present; a bad value is recorded on `r` (ObjectReader::Fail) with
// its path, and `out` is left as it was.
#ifndef ENGRAM_SERVER_HTTP_REQUEST_FIELDS_H_
#define ENGRAM_SERVER_HTTP_REQUEST_FIELDS_H_

#include <optional>

#include "engram/engine.h"
#include "server/http/json_reader.h"

namespace engram::server::http {

// `fusion`: the text form ("convex:alpha=0.7") or an object {method, k,
// weights: {text, vector}, alpha, normalization}. Returns whether it was
// present and valid.
bool ReadFusion(ObjectReader& r, std::optional<FusionSpec>* out);

// `decay` and `boost`: the text forms of engine.h's ParseDecay and
// ParseBoost, as on the command line.
void ReadRanking(ObjectReader& r, std::optional<DecaySpec>* decay, std::optional<BoostSpec>* boost);

}  // namespace engram::server::http

#endif  // ENGRAM_SERVER_HTTP_REQUEST_FIELDS_H_
