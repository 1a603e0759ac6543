#include "thread_stacks.hpp"

#include <pthread.h>
#include <sys/resource.h>

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace nodegen::cli {
namespace {

struct Call {
  int (*body)(int, char**);
  int argc;
  char** argv;
};

// Ends the process with the body's result from this thread: a child forked from it (isolated_run.hpp)
// holds this thread alone, and a return would end that thread, and so the child, with status 0.
[[noreturn]] void* call_body(void* raw) {
  const Call& call = *static_cast<const Call*>(raw);
  std::exit(call.body(call.argc, call.argv));
}

void raise_default_thread_stack() {
  pthread_attr_t defaults;
  if (pthread_getattr_default_np(&defaults) != 0) return;
  std::size_t size = 0;
  if (pthread_attr_getstacksize(&defaults, &size) == 0 && size < kLeastThreadStack &&
      pthread_attr_setstacksize(&defaults, kLeastThreadStack) == 0)
    pthread_setattr_default_np(&defaults);
  pthread_attr_destroy(&defaults);
}

// libgomp's reading of the variable (env.c, parse_stacksize): strtoul's number, blanks, an optional
// unit letter, blanks; anything else, or a size past 2^64, it ignores with a warning of its own, and a
// size pthreads refuse (below PTHREAD_STACK_MIN) too.
std::optional<std::size_t> parse_stack_size(const char* text) {
  while (std::isspace(static_cast<unsigned char>(*text))) ++text;
  if (*text == '\0') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  if (errno != 0) return std::nullopt;
  while (std::isspace(static_cast<unsigned char>(*end))) ++end;
  int shift = 10;
  if (*end != '\0') {
    switch (std::tolower(static_cast<unsigned char>(*end))) {
      case 'b': shift = 0; break;
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      default: return std::nullopt;
    }
    ++end;
    while (std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (*end != '\0') return std::nullopt;
  }
  if (((value << shift) >> shift) != value) return std::nullopt;
  const std::size_t size = value << shift;
  if (size < static_cast<std::size_t>(PTHREAD_STACK_MIN)) return std::nullopt;
  return size;
}

}  // namespace

int run_with_stacks(int (*body)(int, char**), int argc, char** argv) {
  raise_default_thread_stack();
  // The main thread serves where its stack may grow to kLeastMainStack, with the soft limit raised if
  // the hard one allows (the kernel checks the limit as the stack grows). It stays the
  // command's thread wherever it can: a child forked from another thread (isolated_run.hpp) holds no
  // main thread, which LeakSanitizer's check at exit cannot handle.
  rlimit stack{};
  if (getrlimit(RLIMIT_STACK, &stack) == 0) {
    if (stack.rlim_cur == RLIM_INFINITY || stack.rlim_cur >= kLeastMainStack) return body(argc, argv);
    if (stack.rlim_max == RLIM_INFINITY || stack.rlim_max >= kLeastMainStack) {
      stack.rlim_cur = kLeastMainStack;
      if (setrlimit(RLIMIT_STACK, &stack) == 0) return body(argc, argv);
    }
  }
  Call call{body, argc, argv};
  pthread_attr_t attributes;
  pthread_t thread;
  bool started = pthread_attr_init(&attributes) == 0 &&
                 pthread_attr_setstacksize(&attributes, kCommandStack) == 0 &&
                 pthread_create(&thread, &attributes, call_body, &call) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) return body(argc, argv);
  pthread_join(thread, nullptr);  // never returns: the body's thread ends the process
  return 2;
}

std::optional<std::size_t> openmp_stack_size() {
  for (const char* name : {"OMP_STACKSIZE", "GOMP_STACKSIZE"})
    if (const char* text = std::getenv(name))
      if (auto size = parse_stack_size(text)) return size;
  return std::nullopt;
}

}  // namespace nodegen::cli
