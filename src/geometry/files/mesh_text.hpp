#pragma once
// What the mesh format checks share (mesh_file_check.hpp): the refusal, the limit on a face's corners,
// a tokenizer that reads text as CGAL's readers do, whole-number parsing, and the checks every text
// format passes (no NUL byte, no non-finite coordinate). One checker per format uses them:
// stl_file_check.cpp, off_file_check.cpp, obj_file_check.cpp, ply_file_check.cpp.
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace nodegen::geometry_detail::mesh_check {

// Throws InputFileError with the reason (the caller names the file).
[[noreturn]] void refuse(const std::string& reason);

// Corners of one face at most. A polygon becomes a fan of triangles around its first corner, whose
// high valence makes the mesh's self-intersection test and CGAL's face insertion quadratic in the
// corner count, and CGAL's soup repair removes a polygon's repeated corners one at a time. Meshes as
// exported keep far fewer on a face; a larger polygon can be given as triangles.
inline constexpr std::uint64_t kMaxFaceCorners = 1024;

// Refuses face `face` of `format` when it has more than kMaxFaceCorners corners.
void check_face_corners(const char* format, std::uint64_t face, std::uint64_t corners);

std::string lower(std::string s);

// Whitespace-separated tokens of a text, line by line, skipping '#' comments (OFF) when asked.
class Tokens {
 public:
  Tokens(std::string_view text, bool comments) : text_(text), comments_(comments) {}

  // The next token on the current line, or empty at its end.
  std::string_view next_on_line() {
    // Every space but the line's end, as >> skips it: a form feed before an index had ended the line
    // here while CGAL read the index after it (found by fuzz_mesh_ply).
    while (pos_ < text_.size() && text_[pos_] != '\n' && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ >= text_.size() || text_[pos_] == '\n' || (comments_ && text_[pos_] == '#')) return {};
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // The next token, across lines and comments; empty at the end of the text.
  std::string_view next() {
    for (;;) {
      const std::string_view t = next_on_line();
      if (!t.empty()) return t;
      if (!next_line()) return {};
    }
  }
  // Moves to the start of the next line; false at the end of the text.
  bool next_line() {
    const std::size_t eol = text_.find('\n', pos_);
    if (eol == std::string_view::npos) {
      pos_ = text_.size();
      return false;
    }
    pos_ = eol + 1;
    return true;
  }
  std::size_t remaining() const { return text_.size() - pos_; }
  std::size_t position() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }

 private:
  std::string_view text_;
  bool comments_;
  std::size_t pos_ = 0;
};

// A non-negative decimal count; false when the token is not one (or above 2^62).
bool count_of(std::string_view t, std::uint64_t& out);

// The count an istream's >> reads from the start of a token ("0/" is 0, "12abc" 12); false when the
// token does not start with a digit (a sign included: >> into an unsigned wraps "-1" to 2^64 - 1).
bool leading_count(std::string_view t, std::uint64_t& out);

// A number as the checks' messages show it (the stream's default format).
std::string num_text(double v);

// A text mesh holds no NUL byte. CGAL's readers take some records as C strings, which a NUL ends, and
// others by >>, which reads past it, so the records CGAL read were not those this check had read (a COFF
// file with NULs between comment lines made CGAL read a colour past its array). `text` starts at the
// file's first byte.
void check_no_nul(std::string_view text);

// A coordinate written as nan, inf or a number beyond double's range: CGAL's exact predicates convert
// coordinates to GMP rationals, and GMP raises SIGFPE on a non-finite double.
void check_finite_text(const std::string& text);

// The format checkers, each given the file's whole text.
void check_stl(const std::string& text);
void check_off(const std::string& text);
void check_obj(const std::string& text);
void check_ply(const std::string& text);

// Where the keyword "solid" of an ASCII STL file starts (after leading blanks), given the file's first
// bytes (at least 84, or all of it) and its size; std::string_view::npos for a binary STL.
std::size_t ascii_stl_keyword(std::string_view head, std::uintmax_t file_size);

}  // namespace nodegen::geometry_detail::mesh_check
