#include "filter/compiler.h"

#include <utility>

#include "filter/check/checker.h"
#include "filter/optimize/optimize.h"

namespace engram::filter {

Checked<CompiledFilter> Compile(Dialect dialect, std::string_view text,
                                std::shared_ptr<const Schema> schema) {
  const DialectSpec& spec = GetDialect(dialect);
  json::ReadOptions options;
  options.max_bytes = kMaxFilterBytes;
  options.max_depth = kMaxJsonDepth;
  json::ReadResult doc = json::Read(text, options);
  if (doc.ok()) return CompileJson(dialect, doc.value, std::move(schema));
  const json::ReadError& e = *doc.error;
  Fault f;
  switch (e.fault) {
    case json::ReadFault::kSyntax:
      f = Fault{FaultCode::kSyntax, Path(), e.detail, "", "", "", 0, 0};
      break;
    case json::ReadFault::kTooDeep:
      f = Fault{FaultCode::kNestingTooDeep, e.path, e.detail, "", "", "", 0, 0};
      break;
    case json::ReadFault::kTooLarge:
      f = Fault{FaultCode::kTextTooLarge, Path(), e.detail, "", "", "",
                static_cast<std::int64_t>(text.size()), static_cast<std::int64_t>(kMaxFilterBytes)};
      break;
    case json::ReadFault::kDuplicateKey:
      f = Fault{FaultCode::kDuplicateKey, spec.LocateReadFault(e.path), e.token, "", "", "", 0, 0};
      break;
    case json::ReadFault::kNumberOutOfRange:
      f = Fault{FaultCode::kNumberOutOfRange, spec.LocateReadFault(e.path), e.token, e.detail, "",
                "", 0, 0};
      break;
  }
  return spec.Render(f);
}

Checked<CompiledFilter> CompileJson(Dialect dialect, const json::Value& doc,
                                    std::shared_ptr<const Schema> schema) {
  const DialectSpec& spec = GetDialect(dialect);
  ast::Tree tree = spec.Parse(doc);
  CheckResult checked = Check(tree, *schema, spec.policy());
  if (!checked.root) return spec.Render(*checked.fault);
  CompiledFilter out;
  out.checked = Filter{schema, *checked.root};
  out.optimized = Filter{schema, Optimize(std::move(*checked.root), *schema)};
  return out;
}

}  // namespace engram::filter
