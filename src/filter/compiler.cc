#include "filter/compiler.h"

#include <utility>

#include "filter/check/checker.h"
#include "filter/optimize/optimize.h"

namespace engram::filter {

namespace {

Fault ReadFaultToFault(const DialectSpec& spec, const json::ReadError& e, std::size_t text_size) {
  switch (e.fault) {
    case json::ReadFault::kSyntax:
      break;
    case json::ReadFault::kTooDeep:
      return MakeFault(FaultCode::kNestingTooDeep, e.path, e.detail);
    case json::ReadFault::kTooLarge:
      return CountFault(FaultCode::kTextTooLarge, Path(), text_size, kMaxFilterBytes, e.detail);
    case json::ReadFault::kDuplicateKey:
      return MakeFault(FaultCode::kDuplicateKey, spec.LocateReadFault(e.path), e.token);
    case json::ReadFault::kNumberOutOfRange:
      return MakeFault(FaultCode::kNumberOutOfRange, spec.LocateReadFault(e.path), e.token,
                       e.detail);
  }
  return MakeFault(FaultCode::kSyntax, Path(), e.detail);
}

// Where a deferred reading fault stands in pre-order: a duplicate key is a
// fault of the object that holds it (like an unknown key), a bad number of
// the literal it was meant to be.
Path OrderPath(const DialectSpec& spec, const json::ReadError& e) {
  Path located = spec.LocateReadFault(e.path);
  if (e.fault != json::ReadFault::kDuplicateKey || located != e.path) return located;
  return e.path.Parent();
}

Checked<CompiledFilter> CheckTree(const DialectSpec& spec, const json::Value& doc,
                                  const std::vector<json::ReadError>& deferred,
                                  std::shared_ptr<const Schema> schema) {
  ast::Tree tree = spec.parse(doc);
  CheckResult checked = Check(tree, *schema, spec.policy);
  // The first error in pre-order wins, whichever layer found it (FILTERS.md
  // §1.4): the checker's first fault, or the first duplicate key or
  // out-of-range number the reader put aside, when that comes earlier.
  if (!deferred.empty()) {
    const json::ReadError& first = deferred.front();
    if (!checked.fault ||
        !json::PrecedesInDocument(doc, checked.fault->path, OrderPath(spec, first))) {
      return spec.render(ReadFaultToFault(spec, first, 0));
    }
  }
  if (!checked.root) return spec.render(*checked.fault);
  Node optimized = Optimize(*checked.root, *schema);
  return CompiledFilter(Filter{schema, std::move(*checked.root)},
                        Filter{schema, std::move(optimized)});
}

}  // namespace

Checked<CompiledFilter> Compile(Dialect dialect, std::string_view text,
                                std::shared_ptr<const Schema> schema) {
  const DialectSpec& spec = GetDialect(dialect);
  json::ReadOptions options;
  options.max_bytes = kMaxFilterBytes;
  options.max_depth = kMaxJsonDepth;
  options.defer_value_faults = true;
  json::ReadResult doc = json::Read(text, options);
  if (!doc.ok()) return spec.render(ReadFaultToFault(spec, *doc.error, text.size()));
  return CheckTree(spec, doc.value, doc.deferred, std::move(schema));
}

Checked<CompiledFilter> CompileJson(Dialect dialect, const json::Value& doc,
                                    std::shared_ptr<const Schema> schema) {
  return CheckTree(GetDialect(dialect), doc, {}, std::move(schema));
}

Checked<Translation> TranslateCompiled(const CompiledFilter& compiled, Dialect dialect,
                                       Target target) {
  std::variant<Translation, Fault> t = Translate(compiled.optimized, target);
  if (Fault* f = std::get_if<Fault>(&t)) return GetDialect(dialect).render(*f);
  return std::get<Translation>(std::move(t));
}

}  // namespace engram::filter
