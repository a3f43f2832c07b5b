#!/usr/bin/env bash
# Makes the fastText document vectors of the vector benchmark from the Debian
# 12 package descriptions (../shared/data/debian/packages.jsonl.gz), with
# Debian's own `fasttext` (0.9.2), the way a user without a downloadable
# embedding model would:
#
#  1. text of a package = title + " " + description, lower-cased, every
#     character other than a-z and 0-9 turned into a space (fastText splits
#     on whitespace only); its label = the Debian section ("unknown" if none);
#  2. skipgram word vectors on those texts (4.0 M words): dim 100, epoch 5,
#     minCount 3, no character n-grams (-maxn 0: training with the default
#     3-6 n-grams took 3x longer), seed 1, 2 threads (hogwild training on
#     more than one thread is not bit-reproducible; -thread 1 would be);
#  3. document vector = `fasttext print-sentence-vectors`: for an
#     unsupervised model, the mean over the document's in-vocabulary words of
#     each word's vector divided by its L2 norm. A document with no such word
#     gets a zero vector, which the benchmark drops (data.h).
#
# Output: <out>/fasttext-debian.tsv, one line per package in file order:
# `section<TAB>v1 v2 ... v100`. Skipped when that file exists.
#
#   bench/vector/prepare_fasttext.sh [OUT_DIR] [DATA_DIR]
#     OUT_DIR  default build/vector-data      DATA_DIR  default ../shared/data
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/vector-data}
data=${2:-$root/../shared/data}
target=$out/fasttext-debian.tsv
if [[ -s $target ]]; then
  echo "prepare_fasttext: $target exists, skipped" >&2
  exit 0
fi
mkdir -p "$out"
tmp=$(mktemp -d "$out/fasttext-tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
echo "prepare_fasttext: extracting texts and sections" >&2
zcat "$data/debian/packages.jsonl.gz" |
  jq -r '[(.section // "unknown" | if . == "" then "unknown" else . end),
          ((.title // "") + " " + (.text // ""))] | @tsv' >"$tmp/raw.tsv"
cut -f1 "$tmp/raw.tsv" >"$tmp/labels.txt"
# @tsv escapes tabs and newlines as \t, \n: drop those, then normalise.
cut -f2- "$tmp/raw.tsv" | sed 's/\\[tnr\\]/ /g' | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' ' ' |
  tr -s ' ' >"$tmp/corpus.txt"
echo "prepare_fasttext: $(wc -l <"$tmp/corpus.txt") documents, $(wc -w <"$tmp/corpus.txt") words; training skipgram" >&2
fasttext skipgram -input "$tmp/corpus.txt" -output "$tmp/model" -dim 100 -epoch 5 -minCount 3 \
  -minn 0 -maxn 0 -thread 2 -seed 1 -verbose 1 >&2
echo "prepare_fasttext: document vectors" >&2
fasttext print-sentence-vectors "$tmp/model.bin" <"$tmp/corpus.txt" >"$tmp/vectors.txt"
if [[ $(wc -l <"$tmp/vectors.txt") -ne $(wc -l <"$tmp/labels.txt") ]]; then
  echo "prepare_fasttext: vectors and labels differ in count" >&2
  exit 1
fi
paste "$tmp/labels.txt" "$tmp/vectors.txt" >"$tmp/out.tsv"
mv "$tmp/out.tsv" "$target"
echo "prepare_fasttext: wrote $target in $((SECONDS - start)) s" >&2
