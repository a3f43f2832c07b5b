// A schema with one field of every type, for the filter component's unit tests.
#ifndef ENGRAM_FILTER_TEST_SCHEMA_H_
#define ENGRAM_FILTER_TEST_SCHEMA_H_

#include <memory>

#include "schema/schema.h"

namespace engram::filter {

inline std::shared_ptr<const Schema> TestSchema() {
  static const auto schema = Schema::Parse(R"({"fields":[
    {"name":"i","type":"int","optional":true},
    {"name":"f","type":"float","optional":true},
    {"name":"s","type":"string","optional":true},
    {"name":"b","type":"bool","optional":true},
    {"name":"d","type":"datetime","optional":true},
    {"name":"tags","type":"set<string>","optional":true},
    {"name":"j","type":"int","default":0},
    {"name":"odd name","type":"string","optional":true},
    {"name":"secret","type":"string","optional":true,"filterable":false}]})")
                                 .value();
  return schema;
}

}  // namespace engram::filter

#endif  // ENGRAM_FILTER_TEST_SCHEMA_H_
