// Translators: a checked filter (its optimised IR) in the filter language of
// another store: SQL WHERE clauses with bound parameters (SQLite,
// PostgreSQL), other engines' filter JSON or query strings, and engram's own
// dialects. Every translation means exactly what the evaluator means
// (FILTERS.md §1.3, §1.5b), given the target's documented semantics; what a
// target cannot express faithfully is an error, never a dropped or weakened
// predicate. docs/translations.md is generated from the declarations here.
#ifndef ENGRAM_FILTER_TRANSLATE_TRANSLATE_H_
#define ENGRAM_FILTER_TRANSLATE_TRANSLATE_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "base/json.h"
#include "filter/ast/fault.h"
#include "filter/ir/ir.h"

namespace engram::filter {

enum class Target : std::uint8_t {
  kSqlite,
  kPostgres,         // JSONB `metadata` column
  kPostgresColumns,  // one typed column per field
  kQdrant,
  kPinecone,
  kChroma,
  kWeaviate,
  kMilvus,
  kElasticsearch,
  kMongodb,
  kRedis,
  kLancedb,
  kRetrieve,
  kExprV1,
  kVectorFilter,
};

inline constexpr Target kAllTargets[] = {
    Target::kSqlite,        Target::kPostgres, Target::kPostgresColumns, Target::kQdrant,
    Target::kPinecone,      Target::kChroma,   Target::kWeaviate,        Target::kMilvus,
    Target::kElasticsearch, Target::kMongodb,  Target::kRedis,           Target::kLancedb,
    Target::kRetrieve,      Target::kExprV1,   Target::kVectorFilter};

// "sqlite", "postgres", "postgres_columns", "qdrant", ..., "vector_filter".
std::string_view TargetName(Target t);
std::optional<Target> TargetFromName(std::string_view name);

// What a filter asks of a target: the rows of the capability matrix. A leaf's
// construct is its operation and the type of the field it reads.
enum class Construct : std::uint8_t {
  kAnd,
  kOr,
  kNot,
  kTrue,
  kFalse,
  kExists,
  kEqString,
  kEqInt,
  kEqFloat,
  kEqBool,
  kEqDatetime,
  kNeString,
  kNeInt,
  kNeFloat,
  kNeBool,
  kNeDatetime,
  kOrderString,  // lt, le, gt, ge and ranges
  kOrderInt,
  kOrderFloat,
  kOrderDatetime,
  kInString,
  kInInt,
  kInFloat,
  kInBool,
  kInDatetime,
  kHasAny,          // a set<string> field shares an element with a list
  kContains,        // byte substring of a string field
  kIContains,       // substring after Unicode simple case folding
  kCmpFields,       // two fields of one type compared
  kCmpFieldsMixed,  // an int field compared with a float field
  kInField,         // a string field is an element of a set<string> field
};
inline constexpr std::size_t kConstructCount = static_cast<std::size_t>(Construct::kInField) + 1;

// "and", "eq string", "order datetime", "has_any", ...
std::string_view ConstructName(Construct c);
// The construct of one node (not of its children).
Construct ConstructOf(const Node& n, const Schema& schema);

// A set of constructs (a bit per construct).
class ConstructSet {
 public:
  constexpr ConstructSet() = default;
  static constexpr ConstructSet All() {
    return ConstructSet((std::uint64_t{1} << kConstructCount) - 1);
  }
  constexpr ConstructSet Without(std::initializer_list<Construct> cs) const {
    std::uint64_t bits = bits_;
    for (Construct c : cs) bits &= ~Bit(c);
    return ConstructSet(bits);
  }
  constexpr bool Has(Construct c) const { return (bits_ & Bit(c)) != 0; }

 private:
  constexpr explicit ConstructSet(std::uint64_t bits) : bits_(bits) {}
  static constexpr std::uint64_t Bit(Construct c) {
    return std::uint64_t{1} << static_cast<unsigned>(c);
  }
  std::uint64_t bits_ = 0;
};

// A translated filter (FILTERS.md §1.5b): the target's own JSON, or a string
// for text targets, and the bound values in placeholder order (SQL targets).
struct Translation {
  json::Value filter;
  json::Value params = json::Value::array();
};

// What a translator could not carry faithfully: the node, and what about it
// ("a string with U+0000", "an int beyond ±2^53").
struct Unsupported {
  const Node* node;
  std::string what;
};

using TranslateResult = std::variant<Translation, Unsupported>;

// A target: its name, what it declares it can express, and the translator.
struct TargetSpec {
  Target id;
  std::string_view name;
  // One paragraph for docs/translations.md: the record layout the translation
  // assumes (how each type is stored), missing fields, and the sources the
  // semantics rest on.
  std::string_view notes;
  ConstructSet supports;
  // Translates a tree every construct of which `supports` holds. Values the
  // target cannot carry are reported as Unsupported at their node.
  TranslateResult (*translate)(const Node& root, const Schema& schema);
};

const TargetSpec& GetTarget(Target t);

// Translates `filter` (its optimised IR) for `target`. The first node in
// pre-order whose construct the target does not support, or whose values it
// cannot carry, is a Fault kUnsupported at the path where it was written (a:
// the target, b: the construct).
std::variant<Translation, Fault> Translate(const Filter& filter, Target target);

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_TRANSLATE_TRANSLATE_H_
