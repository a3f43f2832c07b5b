// Collection: a record's JSON checked and prepared for the indexes
// (Prepare, for writes), a stored record read back (Reload, for reopening),
// and what is derived from a prepared record (its stored body, its content
// hash).
#include <cmath>
#include <cstring>
#include <utility>

#include "base/status.h"
#include "engine/collection.h"
#include "engine/dedup.h"
#include "engine/embedding.h"
#include "engine/internal.h"
#include "engine/record_key.h"
#include "engine/version.h"
#include "schema/record.h"
#include "search/value_cover.h"

namespace engram::engine {
namespace {

Diagnostic RecordDiagnostic(std::string path, std::string message) {
  return Diagnostic{400, "record.invalid", path, std::move(message)};
}

}  // namespace

Checked<PreparedRecord> Collection::Prepare(std::string_view json_text) const {
  if (json_text.size() > kMaxRecordBytes) {
    return RecordDiagnostic("",
                            "record is larger than " + std::to_string(kMaxRecordBytes) + " bytes");
  }
  json::ReadOptions options;
  options.max_bytes = kMaxRecordBytes;
  json::ReadResult read = json::Read(json_text, options);
  if (!read.ok()) {
    return RecordDiagnostic(read.error->path.Dotted(""), "not valid JSON: " + read.error->detail);
  }
  if (!read.value.is_object()) {
    return RecordDiagnostic(
        "", "a record must be a JSON object, got " + std::string(json::TypeName(read.value)));
  }
  json::Value& object = read.value;
  PreparedRecord out;
  // The vector is stored apart from the body, as float32.
  auto vec = object.find("vector");
  if (embedder_ && (vec == object.end() || vec->is_null())) {
    out.embed = true;  // the engine embeds the text fields
    if (vec != object.end()) object.erase(vec);
  } else if (spec_.vector_dim > 0) {
    if (vec == object.end() || vec->is_null()) {
      return RecordDiagnostic("vector", "field 'vector': required, the collection has " +
                                            std::to_string(spec_.vector_dim) +
                                            "-dimensional vectors");
    }
    if (!vec->is_array() || vec->size() != spec_.vector_dim) {
      return RecordDiagnostic("vector", "field 'vector': expected an array of " +
                                            std::to_string(spec_.vector_dim) + " numbers");
    }
    out.vector.reserve(spec_.vector_dim);
    for (std::size_t i = 0; i < vec->size(); ++i) {
      const json::Value& x = (*vec)[i];
      if (!x.is_number()) {
        return RecordDiagnostic("vector[" + std::to_string(i) + "]",
                                "vector[" + std::to_string(i) + "]: expected a number, got " +
                                    std::string(json::TypeName(x)));
      }
      out.vector.push_back(x.get<float>());
    }
    if (Status s = vectors_->store().Validate(out.vector); !s.ok()) {
      return RecordDiagnostic("vector", s.message());
    }
    object.erase(vec);
  } else if (vec != object.end()) {
    return RecordDiagnostic("vector", "field 'vector': the collection has no vectors");
  }
  if (object.contains(std::string(kVersionMember))) {
    const std::string name(kVersionMember);
    return RecordDiagnostic(name, "field '" + name +
                                      "' is reserved (the engine keeps the "
                                      "record's version there)");
  }
  // Text fields: strings (or absent/null).
  out.texts.resize(spec_.text.size());
  for (std::size_t i = 0; i < spec_.text.size(); ++i) {
    auto it = object.find(spec_.text[i].name);
    if (it == object.end() || it->is_null()) continue;
    if (!it->is_string()) {
      return RecordDiagnostic(spec_.text[i].name, "field '" + spec_.text[i].name +
                                                      "': expected string, got " +
                                                      std::string(json::TypeName(*it)));
    }
    out.texts[i] = it->get<std::string>();
  }
  Checked<Record> record = ParseRecord(object, schema());
  if (!record.ok()) return record.diagnostic();
  if (record.value().id.size() > kMaxIdBytes) {
    return RecordDiagnostic("id", "id is longer than " + std::to_string(kMaxIdBytes) + " bytes");
  }
  Checked<std::vector<std::string>> supersedes =
      ParseSupersedes(object, record.value().id, kMaxIdBytes);
  if (!supersedes.ok()) return supersedes.diagnostic();
  out.supersedes = std::move(supersedes).value();
  out.id = std::move(record.value().id);
  out.slots = std::move(record.value().slots);
  out.slots.resize(row_schema_->fields().size());  // the write sets the version
  if (Checked<bool> keys = CheckGraphKeys(out.slots); !keys.ok()) return keys.diagnostic();
  out.key = KeyOf(out.id, out.slots);
  out.body = json::Dump(object);
  SetContentHash(&out);
  return out;
}

Checked<bool> Collection::CheckGraphKeys(const std::vector<Value>& slots) const {
  std::size_t count = 0;
  for (std::uint32_t slot : graph_slots_) {
    const std::vector<std::string> keys = search::RecordKeys(std::span(&slot, 1), slots);
    const std::string& name = schema().fields()[slot].name;
    for (const std::string& key : keys) {
      if (key.size() > vector::kMaxKeyBytes) {
        return RecordDiagnostic(name, "field '" + name + "': a graph field's value is at most " +
                                          std::to_string(vector::kMaxKeyBytes - 16) + " bytes");
      }
    }
    count += keys.size();
    if (count > vector::kMaxKeysPerRecord) {
      return RecordDiagnostic(name, "field '" + name + "': the graph fields hold more than " +
                                        std::to_string(vector::kMaxKeysPerRecord) +
                                        " values in all");
    }
  }
  return true;
}

StatusOr<std::vector<float>> Collection::StoredVector(std::string_view bytes) const {
  std::vector<float> vector;
  if (bytes.empty()) return vector;
  if (bytes.size() != spec_.vector_dim * sizeof(float)) {
    return Status::Corruption("stored vector has " + std::to_string(bytes.size()) +
                              " bytes, expected " +
                              std::to_string(spec_.vector_dim * sizeof(float)));
  }
  vector.resize(spec_.vector_dim);
  std::memcpy(vector.data(), bytes.data(), bytes.size());
  return vector;
}

Version Collection::VersionOf(const std::vector<Value>& slots) const {
  Version version;
  if (const Datetime* t = std::get_if<Datetime>(&slots[written_slot()])) version.written_at = *t;
  if (const Datetime* t = std::get_if<Datetime>(&slots[superseded_slot()])) {
    version.superseded_at = *t;
  }
  return version;
}

StatusOr<PreparedRecord> Collection::Reload(std::string text, std::string_view vector_bytes) const {
  ASSIGN_OR_RETURN(std::vector<float> vector, StoredVector(vector_bytes));
  // The body was checked by Prepare when it was written; it is checked
  // against the schema again (a store is not trusted blindly), the vector
  // only for its size: Validate ran on it before it was stored.
  json::ReadOptions options;
  options.max_bytes = kMaxRecordBytes;
  json::ReadResult read = json::Read(text, options);
  if (!read.ok() || !read.value.is_object()) {
    return Status::Corruption("stored record is not a JSON object");
  }
  Version version;
  const bool versioned = read.value.contains(std::string(kVersionMember));
  if (std::optional<std::string> bad = TakeVersion(&read.value, &version)) {
    return Status::Corruption(*bad);
  }
  Checked<Record> record = ParseRecord(read.value, schema());
  if (!record.ok()) {
    return Status::Corruption("stored record fails the schema: " + record.diagnostic().message);
  }
  PreparedRecord out;
  out.id = std::move(record.value().id);
  out.slots = std::move(record.value().slots);
  out.slots.resize(row_schema_->fields().size());
  if (version.written_at) out.slots[written_slot()] = *version.written_at;
  if (version.superseded_at) out.slots[superseded_slot()] = *version.superseded_at;
  out.key = KeyOf(out.id, out.slots);
  out.texts.resize(spec_.text.size());
  for (std::size_t i = 0; i < spec_.text.size(); ++i) {
    auto it = read.value.find(spec_.text[i].name);
    if (it != read.value.end() && it->is_string()) out.texts[i] = it->get<std::string>();
  }
  out.vector = std::move(vector);
  // The body without the version member, as Prepare wrote it: cut from the
  // stored text when StoredBody wrote it (reopening does not serialise every
  // record again), else serialised.
  if (!versioned || CutVersion(&text, version)) {
    out.body = std::move(text);
  } else {
    out.body = json::Dump(read.value);
  }
  SetContentHash(&out);
  return out;
}

std::string Collection::StoredBodyOf(const PreparedRecord& r) const {
  const Version version = VersionOf(r.slots);
  if (!version.written_at && !version.superseded_at) return r.body;
  return StoredBody(r.body, version);
}

void Collection::SetContentHash(PreparedRecord* r) const {
  if (spec_.dedup.mode != DedupMode::kExact) return;
  const std::optional<std::string_view> owner =
      owner_slot_ ? OwnerOf(r->slots, *owner_slot_) : std::nullopt;
  r->content_hash = ContentHash(owner, NormalizeContent(r->texts));
}

}  // namespace engram::engine
