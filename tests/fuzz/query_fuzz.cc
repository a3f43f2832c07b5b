// libFuzzer target for the text query DSL (src/text/query), both profiles.
// The first byte picks the profile, whether aliases apply and the anchor;
// the rest is the query. Invariants: never crashes; parsing is deterministic;
// the AST prints as valid UTF-8 JSON; a `default` FTS5 compile is either
// `query.unsupported` or a string in the subset IsWellFormedFts5 accepts (no
// control character anywhere, every term quoted, balanced parentheses); an
// empty AST compiles to "".
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/json.h"
#include "base/unicode.h"
#include "text/query/fts5.h"
#include "text/query/query.h"

namespace {

const engram::text::AliasTable& Aliases() {
  static const engram::text::AliasTable* table = new engram::text::AliasTable(
      {{"ts", {"typescript", "type script"}}, {"Go", {"golang", "--"}}, {"a", {"b", "a"}}});
  return *table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace engram;  // NOLINT(google-build-using-namespace): a fuzz target's own file
  if (size == 0) return 0;
  const std::uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  text::QueryOptions options;
  options.profile = (mode & 1) ? text::Profile::kJeffsBrain : text::Profile::kDefault;
  options.aliases = (mode & 2) ? &Aliases() : nullptr;
  // Anchors near the calendar's edges exercise the range checks.
  options.anchor = (mode & 4) ? text::Date{1, 1, 1} : text::Date{2024, 2, 29};
  if (mode & 8) options.anchor = text::Date{9999, 12, 31};
  Checked<text::Query> a = text::ParseQuery(text, options);
  Checked<text::Query> b = text::ParseQuery(text, options);
  if (a.ok() != b.ok()) std::abort();
  if (!a.ok()) {
    if (a.diagnostic().kind != "query.too_long") std::abort();
    return 0;
  }
  const std::string json_a = json::Dump(text::ToJson(a.value()));
  if (json_a != json::Dump(text::ToJson(b.value())) || !IsValidUtf8(json_a)) std::abort();
  if (!json::Read(json_a, {std::size_t{1} << 24}).ok()) std::abort();
  Checked<std::string> match = text::CompileToFts5(a.value());
  if (options.profile == text::Profile::kJeffsBrain) {
    if (!match.ok() || (a.value().empty() != match.value().empty())) std::abort();
    return 0;
  }
  if (!match.ok()) {
    if (match.diagnostic().kind != "query.unsupported") std::abort();
    return 0;
  }
  if (!text::IsWellFormedFts5(match.value())) std::abort();
  if (a.value().empty() != match.value().empty()) std::abort();
  return 0;
}
