// A C++ exception thrown through several instrumented frames.
#include <cstdio>
#include <stdexcept>
namespace demo {
struct Thrower {
    void level3() { throw std::runtime_error("boom"); }
    void level2() { level3(); }
    void level1() { level2(); }
};
void after_catch() {}
}
int main() {
    demo::Thrower t;
    try { t.level1(); } catch (const std::exception &) { demo::after_catch(); }
    std::puts("caught");
    return 0;
}
