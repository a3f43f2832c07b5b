// The filter compiler: dialect text -> strict JSON -> AST -> checked IR ->
// optimised IR, or the one Diagnostic that says what is wrong and where
// (FILTERS.md). This is the entry point the rest of engram uses.
#ifndef ENGRAM_FILTER_COMPILER_H_
#define ENGRAM_FILTER_COMPILER_H_

#include <memory>
#include <string_view>
#include <utility>

#include "base/diagnostic.h"
#include "base/json.h"
#include "filter/dialects/dialect.h"
#include "filter/eval/program.h"
#include "filter/ir/ir.h"
#include "filter/translate/translate.h"

namespace engram::filter {

struct CompiledFilter {
  CompiledFilter(Filter checked_ir, Filter optimized_ir)
      : checked(std::move(checked_ir)),
        optimized(std::move(optimized_ir)),
        program(optimized.root, *optimized.schema) {}

  Filter checked;    // as the checker built it (explain shows it)
  Filter optimized;  // what is evaluated, planned and translated
  Program program;   // `optimized`, ready to evaluate record after record
};

// Compiles filter text in `dialect` against `schema`. The text is at most
// kMaxFilterBytes and nests at most kMaxJsonDepth levels. Never throws on
// bad input.
Checked<CompiledFilter> Compile(Dialect dialect, std::string_view text,
                                std::shared_ptr<const Schema> schema);

// As Compile, for a filter that is already a JSON value (read strictly by the
// caller, as part of a larger request).
Checked<CompiledFilter> CompileJson(Dialect dialect, const json::Value& doc,
                                    std::shared_ptr<const Schema> schema);

// Translates `compiled` (its optimised IR) for `target` (FILTERS.md §1.5b).
// What the target cannot express is a `filter.unsupported` diagnostic at the
// path where it was written, rendered as `dialect` renders its errors.
Checked<Translation> TranslateCompiled(const CompiledFilter& compiled, Dialect dialect,
                                       Target target);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_COMPILER_H_
