#!/usr/bin/env bash
# Rebuilds the fuzzers' seed corpora from the data-driven filter corpus:
# every `filter:` line of tests/corpus/filter/<dialect>/*.test becomes a seed
# for fuzz_<dialect>; schemas, records and all filters seed fuzz_json.
# Run it after adding corpus cases; commit the result.
set -euo pipefail
cd "$(dirname "$0")"
corpus=../corpus/filter
write() {  # write DIR TEXT: one seed file named by its content's hash
  local dir=$1 text=$2 name
  name=$(printf '%s' "$text" | sha1sum | cut -c1-16)
  printf '%s' "$text" > "$dir/$name"
}
for d in retrieve expr_v1 vector_filter search_memory; do
  rm -rf "seeds/$d" && mkdir -p "seeds/$d"
  while IFS= read -r line; do
    write "seeds/$d" "${line#filter: }"
  done < <(grep -ah '^filter: ' "$corpus/$d"/*.test)
done
rm -rf seeds/json && mkdir -p seeds/json
for f in "$corpus"/*/*.json; do write seeds/json "$(cat "$f")"; done
while IFS= read -r line; do write seeds/json "$line"; done < <(cat "$corpus"/*/*.jsonl | head -n 200)
for d in retrieve expr_v1 vector_filter search_memory; do
  ls "seeds/$d" | head -n 50 | while read -r f; do cp "seeds/$d/$f" seeds/json/; done
done
for d in retrieve expr_v1 vector_filter search_memory json; do
  echo "$d: $(ls "seeds/$d" | wc -l) seeds"
done
