// Standard-library templates compiled into the program: every function g++
// instantiates here must be named, none left mangled.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>
static int total(const std::vector<int> &v) {
    int t = 0;
    for (int x : v) t += x;
    return t;
}
int main() {
    std::vector<int> v;
    for (int i = 0; i < 20; i++) v.push_back(20 - i);
    std::sort(v.begin(), v.end());
    std::fill(v.begin(), v.begin() + 3, 7);
    int a = 1, b = 2;
    std::swap(a, b);
    auto p = std::make_shared<std::vector<double>>(4);
    std::printf("%d %d %zu\n", total(v), a, p->size());
    return 0;
}
