#include "filter/translate/translate.h"

#include "filter/translate/targets.h"

namespace engram::filter {

std::string_view TargetName(Target t) {
  return GetTarget(t).name;
}

std::optional<Target> TargetFromName(std::string_view name) {
  for (Target t : kAllTargets) {
    if (TargetName(t) == name) return t;
  }
  return std::nullopt;
}

std::string_view ConstructName(Construct c) {
  static constexpr std::string_view kNames[kConstructCount] = {
      "and",         "or",           "not",       "true",        "false",
      "exists",      "eq string",    "eq int",    "eq float",    "eq bool",
      "eq datetime", "ne string",    "ne int",    "ne float",    "ne bool",
      "ne datetime", "order string", "order int", "order float", "order datetime",
      "in string",   "in int",       "in float",  "in bool",     "in datetime",
      "has_any",     "contains",     "icontains", "cmp_fields",  "cmp_fields int/float",
      "in_field"};
  return kNames[static_cast<std::size_t>(c)];
}

namespace {

// eq/ne/order/in constructs are laid out string, int, float, bool, datetime.
Construct Typed(Construct first, FieldType t) {
  int offset = 0;
  switch (t) {
    case FieldType::kString:
      offset = 0;
      break;
    case FieldType::kInt:
      offset = 1;
      break;
    case FieldType::kFloat:
      offset = 2;
      break;
    case FieldType::kBool:
      offset = 3;
      break;
    case FieldType::kDatetime:
    case FieldType::kStringSet:
      offset = 4;
      break;
  }
  // Orderings have no bool: int/float/datetime sit one place earlier.
  if (first == Construct::kOrderString && offset == 4) offset = 3;
  return static_cast<Construct>(static_cast<int>(first) + offset);
}

// The first node in pre-order the target cannot express.
const Node* FirstUnsupported(const Node& n, const Schema& schema, ConstructSet supports) {
  if (!supports.Has(ConstructOf(n, schema))) return &n;
  for (const Node& c : n.children) {
    if (const Node* bad = FirstUnsupported(c, schema, supports)) return bad;
  }
  return nullptr;
}

}  // namespace

Construct ConstructOf(const Node& n, const Schema& schema) {
  if (!n.IsLeaf() || n.IsConst()) {
    return n.op == Op::kAnd    ? Construct::kAnd
           : n.op == Op::kOr   ? Construct::kOr
           : n.op == Op::kNot  ? Construct::kNot
           : n.op == Op::kTrue ? Construct::kTrue
                               : Construct::kFalse;
  }
  const FieldType type = schema.field(n.slot).type;
  switch (n.op) {
    case Op::kTrue:
      return Construct::kTrue;
    case Op::kFalse:
      return Construct::kFalse;
    case Op::kAnd:
      return Construct::kAnd;
    case Op::kOr:
      return Construct::kOr;
    case Op::kNot:
      return Construct::kNot;
    case Op::kExists:
      return Construct::kExists;
    case Op::kCmp:
      if (n.cmp == CmpOp::kEq) return Typed(Construct::kEqString, type);
      if (n.cmp == CmpOp::kNe) return Typed(Construct::kNeString, type);
      return Typed(Construct::kOrderString, type);
    case Op::kRange:
      return Typed(Construct::kOrderString, type);
    case Op::kIn:
      return Typed(Construct::kInString, type);
    case Op::kHasAny:
      return Construct::kHasAny;
    case Op::kContains:
      return Construct::kContains;
    case Op::kIContains:
      return Construct::kIContains;
    case Op::kCmpFields:
      return type == schema.field(n.other).type ? Construct::kCmpFields
                                                : Construct::kCmpFieldsMixed;
    case Op::kInField:
      return Construct::kInField;
  }
  return Construct::kTrue;
}

const TargetSpec& GetTarget(Target t) {
  switch (t) {
    case Target::kSqlite:
      return detail::SqliteTarget();
    case Target::kPostgres:
      return detail::PostgresTarget();
    case Target::kPostgresColumns:
      return detail::PostgresColumnsTarget();
    case Target::kQdrant:
      return detail::QdrantTarget();
    case Target::kPinecone:
      return detail::PineconeTarget();
    case Target::kChroma:
      return detail::ChromaTarget();
    case Target::kWeaviate:
      return detail::WeaviateTarget();
    case Target::kMilvus:
      return detail::MilvusTarget();
    case Target::kElasticsearch:
      return detail::ElasticsearchTarget();
    case Target::kMongodb:
      return detail::MongodbTarget();
    case Target::kRedis:
      return detail::RedisTarget();
    case Target::kLancedb:
      return detail::LancedbTarget();
    case Target::kRetrieve:
      return detail::RetrieveTarget();
    case Target::kExprV1:
      return detail::ExprV1Target();
    case Target::kVectorFilter:
      return detail::VectorFilterTarget();
  }
  return detail::SqliteTarget();
}

std::variant<Translation, Fault> Translate(const Filter& filter, Target target) {
  const TargetSpec& spec = GetTarget(target);
  const Schema& schema = *filter.schema;
  Unsupported bad{nullptr, ""};
  if (const Node* n = FirstUnsupported(filter.root, schema, spec.supports)) {
    bad = Unsupported{n, std::string(ConstructName(ConstructOf(*n, schema)))};
  } else {
    TranslateResult r = spec.translate(filter.root, schema);
    if (Translation* t = std::get_if<Translation>(&r)) return std::move(*t);
    bad = std::get<Unsupported>(std::move(r));
  }
  return MakeFault(FaultCode::kUnsupported, bad.node->path, std::string(spec.name),
                   std::move(bad.what));
}

}  // namespace engram::filter
