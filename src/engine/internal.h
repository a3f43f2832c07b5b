// What the engine's implementation files share and front-ends never see:
// the mapping of public enums and fusions to the internal ones, and the
// query anchor.
#ifndef ENGRAM_ENGINE_INTERNAL_H_
#define ENGRAM_ENGINE_INTERNAL_H_

#include <optional>
#include <string_view>

#include "engram/diagnostic.h"
#include "engram/engine.h"
#include "engram/filter.h"
#include "filter/dialects/dialect.h"
#include "search/search.h"
#include "text/query/query.h"

namespace engram {

filter::Dialect ToInternal(FilterDialect dialect);

// The search pipeline's fusion for `spec`; InvalidArgument as ParseFusion
// words it ("fusion: alpha: ...").
StatusOr<search::Fusion> ToInternal(const FusionSpec& spec);
// The fusion a search of the collection `spec` uses unless it names one:
// spec.fusion, else DefaultEmbedderFusion() with an embedder, else RRF k = 60.
search::Fusion DefaultFusion(const CollectionSpec& spec);

// Sets options->anchor from `anchor` (YYYY-MM-DD; empty leaves it unset, so
// today). A Diagnostic "query.invalid_anchor" at `path` when it is not a date.
std::optional<Diagnostic> SetQueryAnchor(std::string_view anchor, std::string_view path,
                                         text::QueryOptions* options);

}  // namespace engram

#endif  // ENGRAM_ENGINE_INTERNAL_H_
