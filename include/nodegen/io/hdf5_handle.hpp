#pragma once
// RAII for HDF5 identifiers (private to src/io): every hid_t is closed exactly once, also when an
// exception leaves a half-written file, so the temporary file can be deleted afterwards.
#include <hdf5.h>

#include <utility>

namespace nodegen::io::detail {

using H5Closer = herr_t (*)(hid_t);

class H5Handle {
 public:
  H5Handle() = default;
  H5Handle(hid_t id, H5Closer closer) : id_(id), closer_(closer) {}
  H5Handle(const H5Handle&) = delete;
  H5Handle& operator=(const H5Handle&) = delete;
  H5Handle(H5Handle&& o) noexcept : id_(std::exchange(o.id_, -1)), closer_(o.closer_) {}
  H5Handle& operator=(H5Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
      closer_ = o.closer_;
    }
    return *this;
  }
  ~H5Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  explicit operator bool() const { return valid(); }
  // Gives up ownership (the caller closes it, e.g. to check H5Fclose's status).
  hid_t release() { return std::exchange(id_, -1); }
  void reset() {
    if (id_ >= 0 && closer_ != nullptr) closer_(id_);
    id_ = -1;
  }

 private:
  hid_t id_ = -1;
  H5Closer closer_ = nullptr;
};

// Silences HDF5's automatic error-stack printing while alive: failures are reported by our own one
// line message, not by a page of library diagnostics on stderr.
class H5QuietErrors {
 public:
  H5QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &old_fn_, &old_data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  H5QuietErrors(const H5QuietErrors&) = delete;
  H5QuietErrors& operator=(const H5QuietErrors&) = delete;
  ~H5QuietErrors() { H5Eset_auto2(H5E_DEFAULT, old_fn_, old_data_); }

 private:
  H5E_auto2_t old_fn_ = nullptr;
  void* old_data_ = nullptr;
};

}  // namespace nodegen::io::detail
