// The text index's image (TextIndex::Serialize writes it in serialize.cc,
// TextIndex::Load reads it in load.cc). Version 2, little-endian, varints
// as LEB128:
//   "ENGRMTXI" u32 version
//   options: varint F, F x (string name, f64 weight), u8 stemmer, f64 k1, f64 b, u8 relax
//   documents (live only): varint count, count x (varint doc [the first as
//          is, then the gap to the previous, >= 1], F x varint length)
//   terms: varint count, count x (string text [strictly ascending],
//          varint postings, postings x (varint doc delta, F x varint tf,
//          F x tf x varint position delta))
//   surface words (stemmers only): varint count, count x (string word, varint term),
//          then per live document: varint count, count x varint word delta
//   u64 FNV-1a of everything before.
// Version 1 wrote a byte for every record number below the largest, live or
// not; it is refused (the caller rebuilds from its records).
#ifndef ENGRAM_TEXT_INDEX_IMAGE_FORMAT_H_
#define ENGRAM_TEXT_INDEX_IMAGE_FORMAT_H_

#include <cstddef>
#include <cstdint>

namespace engram::text::image {

inline constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'M', 'T', 'X', 'I'};
inline constexpr std::uint32_t kVersion = 2;
inline constexpr std::size_t kMaxFields = 256;

}  // namespace engram::text::image

#endif  // ENGRAM_TEXT_INDEX_IMAGE_FORMAT_H_
