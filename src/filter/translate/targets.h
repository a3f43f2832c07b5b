// The targets, one file each; translate.cc is the registry. Shared pieces
// for writing translations live in translate_util.h.
#ifndef ENGRAM_FILTER_TRANSLATE_TARGETS_H_
#define ENGRAM_FILTER_TRANSLATE_TARGETS_H_

#include "filter/translate/translate.h"

namespace engram::filter::detail {

const TargetSpec& SqliteTarget();
const TargetSpec& PostgresTarget();
const TargetSpec& PostgresColumnsTarget();
const TargetSpec& QdrantTarget();
const TargetSpec& PineconeTarget();
const TargetSpec& ChromaTarget();
const TargetSpec& WeaviateTarget();
const TargetSpec& MilvusTarget();
const TargetSpec& ElasticsearchTarget();
const TargetSpec& MongodbTarget();
const TargetSpec& RedisTarget();
const TargetSpec& LancedbTarget();
const TargetSpec& RetrieveTarget();
const TargetSpec& ExprV1Target();
const TargetSpec& VectorFilterTarget();

}  // namespace engram::filter::detail

#endif  // ENGRAM_FILTER_TRANSLATE_TARGETS_H_
