#pragma once
// Processes of a fill simulated by threads of one process (PhaseExchange over shared memory), so the
// fill's work shared among several processes is tested without an MPI runtime, and under
// ThreadSanitizer. Every collective call is two barrier phases: post this rank's part, then read all.
#include <barrier>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "nodegen/fill/phase_exchange.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen::testing {

class InProcessRanks {
 public:
  explicit InProcessRanks(int ranks)
      : ranks_(ranks), sync_(ranks), failures_(static_cast<std::size_t>(ranks)), ints_(static_cast<std::size_t>(ranks)),
        doubles_(static_cast<std::size_t>(ranks)), counts_(static_cast<std::size_t>(ranks)), mail_(static_cast<std::size_t>(ranks)) {}

  class Exchange final : public PhaseExchange {
   public:
    Exchange(InProcessRanks& g, int rank) : g_(g), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return g_.ranks_; }
    void agree(std::exception_ptr failure) override {
      g_.failures_[me()] = failure;
      g_.sync_.arrive_and_wait();
      // The lowest failing rank's error, a StoreFull kept as one (as mpi::agree keeps it: the fill tells
      // a reservation that ran out from other failures by it).
      std::string first;
      bool failed = false, store_full = false;
      for (const auto& f : g_.failures_)
        if (f && !failed) {
          failed = true;
          try {
            std::rethrow_exception(f);
          } catch (const StoreFull& e) {
            first = e.what();
            store_full = true;
          } catch (const std::exception& e) {
            first = e.what();
          }
        }
      g_.sync_.arrive_and_wait();
      if (store_full) throw StoreFull(first);
      if (failed) throw std::runtime_error(first);
    }
    void min(std::span<std::int64_t> values) override {
      g_.ints_[me()].assign(values.begin(), values.end());
      g_.sync_.arrive_and_wait();
      for (const auto& v : g_.ints_)
        for (std::size_t i = 0; i < values.size(); ++i) values[i] = std::min(values[i], v[i]);
      g_.sync_.arrive_and_wait();
    }
    void sum(std::span<double> values) override {
      g_.doubles_[me()].assign(values.begin(), values.end());
      g_.sync_.arrive_and_wait();
      for (std::size_t i = 0; i < values.size(); ++i) {
        double s = 0.0;
        for (const auto& v : g_.doubles_) s += v[i];
        values[i] = s;
      }
      g_.sync_.arrive_and_wait();
    }
    std::pair<std::uint64_t, std::uint64_t> scan(std::uint64_t count) override {
      g_.counts_[me()] = count;
      g_.sync_.arrive_and_wait();
      std::uint64_t before = 0, total = 0;
      for (std::size_t r = 0; r < g_.counts_.size(); ++r) {
        if (r < me()) before += g_.counts_[r];
        total += g_.counts_[r];
      }
      g_.sync_.arrive_and_wait();
      return {before, total};
    }
    void exchange(const std::vector<std::vector<double>>& out, std::vector<std::vector<double>>& in) override {
      g_.mail_[me()] = out;
      g_.sync_.arrive_and_wait();
      in.assign(static_cast<std::size_t>(g_.ranks_), {});
      for (std::size_t r = 0; r < in.size(); ++r)
        if (r != me() && me() < g_.mail_[r].size()) in[r] = g_.mail_[r][me()];
      g_.sync_.arrive_and_wait();
    }

   private:
    std::size_t me() const { return static_cast<std::size_t>(rank_); }
    InProcessRanks& g_;
    int rank_;
  };

  // Runs f(exchange, rank) on one thread per rank and returns their results in rank order.
  template <class F>
  auto run(F&& f) {
    using Result = decltype(f(std::declval<Exchange&>(), 0));
    std::vector<Result> results(static_cast<std::size_t>(ranks_));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks_));
    std::vector<std::thread> team;
    for (int r = 0; r < ranks_; ++r)
      team.emplace_back([&, r] {
        Exchange ex(*this, r);
        try {
          results[static_cast<std::size_t>(r)] = f(ex, r);
        } catch (...) {
          errors[static_cast<std::size_t>(r)] = std::current_exception();
        }
      });
    for (auto& t : team) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    return results;
  }

 private:
  int ranks_;
  std::barrier<> sync_;
  std::vector<std::exception_ptr> failures_;
  std::vector<std::vector<std::int64_t>> ints_;
  std::vector<std::vector<double>> doubles_;
  std::vector<std::uint64_t> counts_;
  std::vector<std::vector<std::vector<double>>> mail_;
};

}  // namespace nodegen::testing
