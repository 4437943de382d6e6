// The sanitizer build's own test for -fsanitize=float-cast-overflow: a float past int's range
// converted to int must be reported (tests/CMakeLists.txt expects the report). On x86 the
// conversion gives INT_MIN silently, where a GPU saturates: the difference the check guards.
int main(int argc, char**) {
  volatile float big = 1e20f * static_cast<float>(argc);
  return static_cast<int>(big) == 7;
}
