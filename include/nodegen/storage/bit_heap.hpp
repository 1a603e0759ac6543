#pragma once
// BitHeap: F. J. Tapia's multi-level 64-bit bit-heap (seed "THE SUBALLOCATOR ALGORITHMS", 3.2). It
// tracks which of 2^k slots are taken and yields the FIRST free slot in O(levels) = O(k / 6) word
// operations, with no pointers: the levels are implicit in one array of 64-bit words.
//
// The last level holds one bit per slot (1 = taken). Each bit of level l says whether the word it
// controls in level l + 1 is full (all ones). Level 0 is a single word. Bits that control nothing
// (when a level has fewer than 64 bits) are kept at 1, so "full" is always "word == all ones".
//   allocate:   descend from level 0 following the first zero bit, set the slot bit, and set parent
//               bits upwards while the word just filled became full.
//   deallocate: clear the slot bit, and clear parent bits upwards while the word was full before.
//
// Example: 2^26 slots take 5 levels of 1, 4, 256, 16384 and 2^20 words.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace nodegen {

class BitHeap {
 public:
  static constexpr std::size_t npos = ~std::size_t{0};
  static constexpr unsigned kMaxLog2Capacity = 48;

  explicit BitHeap(unsigned log2_capacity) : log2_capacity_(log2_capacity) {
    if (log2_capacity > kMaxLog2Capacity) throw std::length_error("BitHeap: capacity beyond 2^48");
    // Words per level, from the last level (one bit per slot) up to the single root word.
    std::array<std::size_t, kMaxLevels> words{};
    std::size_t bits = std::size_t{1} << log2_capacity;
    unsigned n = 0;
    do {
      words[n++] = (bits + 63) / 64;
      bits = words[n - 1];
    } while (words[n - 1] > 1);
    levels_ = n;
    std::size_t offset = 0;
    for (unsigned l = 0; l < levels_; ++l) {  // level 0 = root = last computed
      offset_[l] = offset;
      offset += words[levels_ - 1 - l];
    }
    words_.assign(offset, 0);
    // Pad the unused high bits of any level narrower than one word (only ever the root).
    for (unsigned l = 0; l < levels_; ++l) {
      const std::size_t level_bits =
          l + 1 < levels_ ? words[levels_ - 2 - l] : std::size_t{1} << log2_capacity;
      if (level_bits < 64) words_[offset_[l]] = ~std::uint64_t{0} << level_bits;
    }
  }

  std::size_t capacity() const { return std::size_t{1} << log2_capacity_; }
  unsigned log2_capacity() const { return log2_capacity_; }
  std::size_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  bool full() const { return words_[0] == kAllOnes; }
  unsigned levels() const { return levels_; }
  std::size_t memory_bytes() const { return words_.size() * sizeof(std::uint64_t); }

  // Takes the lowest free slot and returns its index, or npos if every slot is taken.
  std::size_t allocate() {
    if (full()) return npos;
    std::size_t cursor = 0;
    for (unsigned l = 0; l < levels_; ++l)
      cursor = (cursor << 6) + static_cast<std::size_t>(std::countr_one(level(l)[cursor]));
    mark_taken(cursor);
    return cursor;
  }

  // Releases a taken slot. Returns false (and changes nothing) if the slot was not taken.
  bool deallocate(std::size_t slot) {
    if (slot >= capacity() || !test(slot)) return false;
    std::size_t n = slot;
    for (unsigned l = levels_; l-- > 0;) {
      std::uint64_t& word = level(l)[n >> 6];
      const bool was_full = word == kAllOnes;
      word &= ~(std::uint64_t{1} << (n & 63));
      if (!was_full) break;
      n >>= 6;
    }
    --count_;
    return true;
  }

  bool test(std::size_t slot) const {
    return (level(levels_ - 1)[slot >> 6] >> (slot & 63)) & 1u;
  }

  // Checks the structural invariants (every parent bit equals "child word full", padding bits set,
  // count equals the number of set slot bits). For tests; O(capacity / 64).
  bool invariants_hold() const {
    std::size_t taken = 0;
    const std::uint64_t* last = level(levels_ - 1);
    const std::size_t last_words = words_.size() - offset_[levels_ - 1];
    for (std::size_t w = 0; w < last_words; ++w) {
      std::uint64_t bits = last[w];
      if (capacity() < 64) bits &= (std::uint64_t{1} << capacity()) - 1;
      taken += static_cast<std::size_t>(std::popcount(bits));
    }
    if (taken != count_) return false;
    for (unsigned l = 0; l + 1 < levels_; ++l) {
      const std::size_t child_words = (l + 2 < levels_ ? offset_[l + 2] : words_.size()) - offset_[l + 1];
      for (std::size_t c = 0; c < 64 * ((child_words + 63) / 64); ++c) {
        const bool parent = (level(l)[c >> 6] >> (c & 63)) & 1u;
        const bool expected = c >= child_words || level(l + 1)[c] == kAllOnes;
        if (parent != expected) return false;
      }
    }
    return true;
  }

 private:
  static constexpr std::uint64_t kAllOnes = ~std::uint64_t{0};
  static constexpr unsigned kMaxLevels = 10;  // ceil(48 / 6) + 1

  std::uint64_t* level(unsigned l) { return words_.data() + offset_[l]; }
  const std::uint64_t* level(unsigned l) const { return words_.data() + offset_[l]; }

  void mark_taken(std::size_t slot) {
    std::size_t n = slot;
    for (unsigned l = levels_; l-- > 0;) {
      std::uint64_t& word = level(l)[n >> 6];
      word |= std::uint64_t{1} << (n & 63);
      if (word != kAllOnes) break;
      n >>= 6;
    }
    ++count_;
  }

  unsigned log2_capacity_;
  unsigned levels_ = 0;
  std::size_t count_ = 0;
  std::array<std::size_t, kMaxLevels> offset_{};
  std::vector<std::uint64_t> words_;
};

}  // namespace nodegen
