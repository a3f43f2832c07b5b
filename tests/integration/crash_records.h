// The records crash_writer.cc and power_loss_test.cc write and crash_checks.h
// checks: deterministic per batch, each with a unique word and a vector
// nobody else has, so that the test can ask every index whether the record
// is there; a fact per batch that supersedes the previous batch's (so that
// a crash also lands between a supersession and the batch it is part of);
// and the writer's step.
#ifndef ENGRAM_TESTS_INTEGRATION_CRASH_RECORDS_H_
#define ENGRAM_TESTS_INTEGRATION_CRASH_RECORDS_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"

namespace engram::crash {

inline constexpr const char* kCollection = "crash";
inline constexpr int kRecords = 40;  // per batch, besides the counter
inline constexpr std::size_t kDim = 8;
// The writer's background checkpoints: after ~3 batches or 200 ms.
inline constexpr std::uint64_t kCheckpointRecords = 120;
inline constexpr std::uint64_t kCheckpointIntervalMs = 200;

inline CollectionSpec Spec() {
  Checked<SchemaRef> schema = SchemaRef::Parse(
      R"({"fields":[{"name":"level","type":"int","required":true},
                    {"name":"batch","type":"int","optional":true}]})");
  return CollectionSpec{kCollection, schema.value(), {{"text", 1.0}}, kDim, "l2", "none", ""};
}

inline std::string Id(long batch, int i) {
  return "b" + std::to_string(batch) + "-" + std::to_string(i);
}

// A word only this record has.
inline std::string Word(long batch, int i) {
  return "w" + std::to_string(batch) + "x" + std::to_string(i);
}

inline std::vector<float> Vector(long batch, int i) {
  std::vector<float> v(kDim);
  for (std::size_t d = 0; d < kDim; ++d) {
    v[d] = static_cast<float>(std::sin(0.37 * static_cast<double>(batch) * (d + 1) + 1.3 * i + d));
  }
  v[0] = static_cast<float>(batch);  // far apart per batch
  v[1] = static_cast<float>(i);
  return v;
}

inline std::string VectorJson(const std::vector<float>& v) {
  std::string s = "[";
  for (std::size_t d = 0; d < v.size(); ++d) s += (d ? "," : "") + std::to_string(v[d]);
  return s + "]";
}

// Batch `batch`'s fact: it supersedes the previous batch's.
inline std::string FactId(long batch) {
  return "f" + std::to_string(batch);
}

inline std::vector<std::string> BatchIds(long batch) {
  std::vector<std::string> ids;
  for (int i = 0; i < kRecords; ++i) ids.push_back(Id(batch, i));
  return ids;
}

inline std::vector<std::string> Batch(long batch) {
  std::vector<std::string> out;
  for (int i = 0; i < kRecords; ++i) {
    out.push_back(R"({"id":")" + Id(batch, i) + R"(","text":"common )" + Word(batch, i) +
                  R"(","level":)" + std::to_string(i) + R"(,"batch":)" + std::to_string(batch) +
                  R"(,"vector":)" + VectorJson(Vector(batch, i)) + "}");
  }
  out.push_back(R"({"id":"counter","text":"counter","level":)" + std::to_string(batch) +
                R"(,"vector":[0,0,0,0,0,0,0,-1]})");
  return out;
}

// Batch `batch`'s fact, which the writer's step adds to the batch.
inline std::string Fact(long batch) {
  return R"({"id":")" + FactId(batch) + R"(","text":"fact","level":)" + std::to_string(batch) +
         R"(,"vector":[0,0,0,0,0,0,-2,)" + std::to_string(batch) + "]" +
         (batch > 1 ? R"(,"supersedes":[")" + FactId(batch - 1) + R"("]})" : "}");
}

// The counter's level: the last batch written whole (0 when none).
inline long CounterLevel(const Engine& engine) {
  StatusOr<std::optional<std::string>> c = engine.Get(kCollection, "counter");
  if (!c.ok() || !c->has_value()) return 0;
  const std::string& body = **c;
  const std::size_t at = body.find("\"level\":");
  return at == std::string::npos ? 0 : std::stol(body.substr(at + 8));
}

// One step of the writer: upserts batch `batch` and its fact in one durable write, and
// after every fifth batch B deletes batch B-3 and, when `checkpoint`,
// checkpoints. `ack` hears each acknowledgement ("acked", "deleted" with the
// deleted batch, "checkpoint") as it returns. The first failure is returned.
inline Status WriteStep(Engine& engine, long batch, bool checkpoint,
                        const std::function<void(std::string_view what, long batch)>& ack) {
  std::vector<std::string> records = Batch(batch);
  records.push_back(Fact(batch));
  std::vector<std::string_view> views(records.begin(), records.end());
  StatusOr<WriteResult> r = engine.Upsert(kCollection, views);
  if (!r.ok()) return r.status();
  if (r->rejected) return Status::Internal("batch " + std::to_string(batch) + " rejected");
  ack("acked", batch);
  if (batch % 5 != 0 || batch <= 3) return Status::Ok();
  const std::vector<std::string> ids = BatchIds(batch - 3);
  StatusOr<WriteResult> d = engine.Delete(kCollection, ids);
  if (!d.ok()) return d.status();
  ack("deleted", batch - 3);
  if (!checkpoint) return Status::Ok();
  Status c = engine.Checkpoint(kCollection);
  if (!c.ok()) return c;
  ack("checkpoint", batch);
  return Status::Ok();
}

}  // namespace engram::crash

#endif  // ENGRAM_TESTS_INTEGRATION_CRASH_RECORDS_H_
