#!/usr/bin/env bash
# Trains the fastText model of the embedder benchmark on the BEIR SciFact
# corpus (../shared/data/scifact/corpus.jsonl.gz), with Debian's `fasttext`
# (0.9.2), the way a user without a downloadable embedding model would:
#
#  1. text of a document = title + " " + abstract, exactly as engram's
#     fasttext embedder is given it (no lower-casing, no punctuation removal:
#     fastText splits on whitespace and its character n-grams relate
#     "cancer," to "cancer"); line breaks become spaces;
#  2. skipgram, dim 100, epoch 10, minCount 2, character n-grams 3-6 (the
#     default) hashed into 200k buckets (the default 2M makes an 800 MB file
#     for a corpus this small), seed 1, one thread (bit-reproducible).
#
# Only the corpus is read, never the test claims or judgements.
# Output: <out>/scifact-fasttext.bin. Skipped when that file exists.
#
#   bench/embed/prepare_scifact.sh [OUT_DIR] [DATA_DIR]
#     OUT_DIR  default build/embed-data      DATA_DIR  default ../shared/data
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/embed-data}
data=${2:-$root/../shared/data}
target=$out/scifact-fasttext.bin
if [[ -s $target ]]; then
  echo "prepare_scifact: $target exists, skipped" >&2
  exit 0
fi
mkdir -p "$out"
tmp=$(mktemp -d "$out/scifact-tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
zcat "$data/scifact/corpus.jsonl.gz" | jq -r '((.title // "") + " " + (.text // "")) | gsub("[\r\n]"; " ")' >"$tmp/corpus.txt"
echo "prepare_scifact: $(wc -l <"$tmp/corpus.txt") documents, $(wc -w <"$tmp/corpus.txt") words; training skipgram" >&2
fasttext skipgram -input "$tmp/corpus.txt" -output "$tmp/model" -dim 100 -epoch 10 -minCount 2 \
  -bucket 200000 -thread 1 -seed 1 -verbose 1 >&2
mv "$tmp/model.bin" "$target"
echo "prepare_scifact: wrote $target in $((SECONDS - start)) s" >&2
