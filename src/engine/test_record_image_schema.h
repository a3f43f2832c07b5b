// For tests: the schema of the records image's seed images, one field of
// every type, which record_image_test.cc writes them with and the fuzz
// target (tests/fuzz/record_image_fuzz.cc) reads them with.
#ifndef ENGRAM_ENGINE_TEST_RECORD_IMAGE_SCHEMA_H_
#define ENGRAM_ENGINE_TEST_RECORD_IMAGE_SCHEMA_H_

#include <memory>
#include <utility>
#include <vector>

#include "schema/schema.h"

namespace engram::engine {

// Fields agent_id (string), level (int), score (float), done (bool), at
// (datetime), tags (set<string>), in that slot order.
inline std::shared_ptr<const Schema> RecordImageSeedSchema() {
  std::vector<Field> fields(6);
  const FieldType types[] = {FieldType::kString, FieldType::kInt,      FieldType::kFloat,
                             FieldType::kBool,   FieldType::kDatetime, FieldType::kStringSet};
  const char* names[] = {"agent_id", "level", "score", "done", "at", "tags"};
  for (std::size_t i = 0; i < fields.size(); ++i) {
    fields[i].name = names[i];
    fields[i].type = types[i];
  }
  return std::make_shared<const Schema>(std::move(fields));
}

}  // namespace engram::engine

#endif  // ENGRAM_ENGINE_TEST_RECORD_IMAGE_SCHEMA_H_
