#pragma once
// PhaseTimes: writes the phase log (discretization.hpp, PhaseLog; docs/parallel-fill.md, "Scaling
// model") when the caller asked for one, and costs a pointer test per item when not.
//
// What it records, per phase: the seconds of each item of the round (first the next phase's planning
// when thread 0 did it as the round began, 0 when not; then its tiles, then the copies of the previous
// phase's nodes, in the order the items were handed out); of the work one thread does alone
// (completion: the completion step, with the planning when it ran there, plus the heap trim, which runs
// during the round on one thread but is logged as if serial, so the scaling model does not count on
// the round's tails to hide it); and of the runs' hand-overs during the round, each by its own thread
// (handover).
//
// Beside each tile item, the tile's level and cell (tile()), and each round's generation, so a model can
// tell which items touch (PhaseLog).
//
// Concurrency: item() and tile() write the slot of the item its thread took; add_planning and add_trim are each
// called by the one thread that took that job; the rest by the completion step.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "nodegen/fill/discretization.hpp"

namespace nodegen::fill_detail {

class PhaseTimes {
 public:
  using Clock = std::chrono::steady_clock;

  explicit PhaseTimes(PhaseLog* log) : log_(log) {}

  bool on() const { return log_ != nullptr; }
  static float seconds_since(Clock::time_point t) {
    return std::chrono::duration<float>(Clock::now() - t).count();
  }

  // A round of `items` items of `generation` begins (its first slot is the planning's).
  // Called within the completion step, whose time the log's own allocations here would swell: they
  // are timed and left out of it (end_phase).
  void begin_round(std::size_t items, std::uint64_t generation) {
    slot_ = log_ && items;
    if (!slot_) return;
    const auto start = Clock::now();
    log_->item_seconds.emplace_back(items + 1, 0.0f);
    log_->item_tiles.emplace_back(items + 1);
    log_->generations.push_back(generation);
    bookkeeping_ += seconds_since(start);
  }
  // When an item starts (the clock is read only when logging).
  Clock::time_point item_start() const { return log_ ? Clock::now() : Clock::time_point{}; }
  // Item i of the round, started at `start`, is done.
  void item(std::size_t i, Clock::time_point start) {
    if (log_) log_->item_seconds.back()[i + 1] = seconds_since(start);
  }
  // Item i of the round expanded the tile of `level` whose cell is [lo, hi].
  template <class Vec>
  void tile(std::size_t i, std::int32_t level, const Vec& lo, const Vec& hi) {
    if (!log_) return;
    PhaseLog::ItemTile& t = log_->item_tiles.back()[i + 1];
    t.tile = true;
    t.level = level;
    for (int a = 0; a < static_cast<int>(lo.size()); ++a) {
      t.lo[a] = lo[a];
      t.hi[a] = hi[a];
    }
  }
  // The space-rule fill's lock, held since `start` after an item (under the lock: one writer), and
  // the items it ran.
  void add_lock(Clock::time_point start) {
    if (log_) log_->lock_seconds += seconds_since(start);
  }
  void count_lock_items(std::size_t items) {
    if (log_) log_->lock_items += items;
  }
  // The round's planning of the next phase (by thread 0 as the round begins), and the heap trim.
  void add_planning(Clock::time_point start) {
    if (slot_) log_->item_seconds.back()[0] = seconds_since(start);  // a round runs only with items
  }
  void add_trim(Clock::time_point start) {
    if (log_) trim_seconds_ += seconds_since(start);
  }
  // The completion step that began at `start` ends; `handing`: the runs' hand-over seconds of the round.
  void end_phase(Clock::time_point start, float handing) {
    if (!log_) return;
    const float own = seconds_since(start) - std::exchange(bookkeeping_, 0.0f);
    log_->completion_seconds.push_back(std::max(0.0f, own) + std::exchange(trim_seconds_, 0.0f));
    log_->handover_seconds.push_back(handing);
  }
  // The same with several processes, whose completion step hands over alone.
  void end_phase_alone(Clock::time_point start) {
    if (!log_) return;
    log_->completion_seconds.push_back(std::max(0.0f, seconds_since(start) - std::exchange(bookkeeping_, 0.0f)));
    log_->handover_seconds.push_back(0.0f);
  }

 private:
  PhaseLog* log_;            // FillOptions::phase_log
  float trim_seconds_ = 0;   // written by the thread that trimmed
  float bookkeeping_ = 0;    // the log's own allocations in the completion step (begin_round)
  bool slot_ = false;        // the round has item slots (the planning's is the first)
};

}  // namespace nodegen::fill_detail
