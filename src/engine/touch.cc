#include "engine/touch.h"

#include <utility>
#include <variant>

#include "base/json.h"
#include "base/status.h"

namespace engram::engine {
namespace {

json::Value JsonOf(const std::variant<std::int64_t, Datetime>& v) {
  if (const auto* n = std::get_if<std::int64_t>(&v)) return json::Value(*n);
  return json::Value(FormatDatetime(std::get<Datetime>(v)));
}

// `body` with `changes` made to its JSON object, and `row` with them.
StatusOr<std::string> Rewrite(const Collection& c, std::string_view body,
                              const std::vector<FieldChange>& changes, std::vector<Value>* row) {
  json::ReadOptions options;
  options.max_bytes = 0;  // written by us, bounded on the way in
  json::ReadResult read = json::Read(body, options);
  if (!read.ok() || !read.value.is_object()) {
    return Status::Corruption("stored record is not a JSON object");
  }
  for (const FieldChange& change : changes) {
    read.value[c.schema().field(change.slot).name] = JsonOf(change.value);
    (*row)[change.slot] = std::visit([](auto v) { return Value(v); }, change.value);
  }
  return json::Dump(read.value);
}

// The later of a datetime slot's value and `t`, or nullopt when `t` is not later.
std::optional<Datetime> Later(const Value& current, Datetime t) {
  if (std::holds_alternative<Datetime>(current) && std::get<Datetime>(current) >= t) {
    return std::nullopt;
  }
  return t;
}

}  // namespace

StatusOr<TouchedRecord> Restate(const Collection& c, std::uint32_t doc, std::string_view body,
                                std::vector<Value> row, const std::vector<FieldChange>& changes) {
  TouchedRecord out;
  out.doc = doc;
  ASSIGN_OR_RETURN(out.body, Rewrite(c, body, changes, &row));
  out.slots = std::move(row);
  return out;
}

void RefreshKept(const Collection& c, Datetime t, PreparedRecord* r) {
  const std::uint32_t slot = *c.time_slot();
  const std::optional<Datetime> later = Later(r->slots[slot], t);
  if (!later) return;
  // Prepare wrote this body from a JSON object: it reads back.
  StatusOr<std::string> body = Rewrite(c, r->body, {{slot, *later}}, &r->slots);
  if (body.ok()) r->body = std::move(body).value();
}

StatusOr<std::optional<TouchedRecord>> RefreshStored(const Collection::Writer& writer,
                                                     std::uint32_t doc, Datetime t) {
  const Collection& c = writer.collection();
  const std::vector<Value>* row = writer.metadata().Row(doc);
  if (row == nullptr) return std::optional<TouchedRecord>();
  const std::uint32_t slot = *c.time_slot();
  const std::optional<Datetime> later = Later((*row)[slot], t);
  if (!later) return std::optional<TouchedRecord>();
  ASSIGN_OR_RETURN(TouchedRecord touched,
                   Restate(c, doc, writer.body_of(doc), *row, {{slot, *later}}));
  return std::optional<TouchedRecord>(std::move(touched));
}

Status ApplyTouches(storage::Store& store, Collection::Writer& writer,
                    std::vector<TouchedRecord> touched) {
  if (touched.empty()) return Status::Ok();
  storage::WriteBatch batch;
  batch.touches.reserve(touched.size());
  for (const TouchedRecord& t : touched) batch.touches.push_back({writer.key_of(t.doc), t.body});
  batch.after = writer.applied_seq();
  ASSIGN_OR_RETURN(const std::uint64_t seq, store.Apply(writer.collection().spec().name, batch));
  writer.Touch(seq, std::move(touched));
  return Status::Ok();
}

}  // namespace engram::engine
