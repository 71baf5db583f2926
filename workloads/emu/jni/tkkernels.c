/* JNI entry points of tkbench.emu.Kernels: the suite's C kernels
 * (workloads/emu/suite) called from Java, one native call per kernel run.
 * Built by scripts/deps/emu.sh into libtkkernels.so for each ISA with the
 * cross compilers, against the JDK's jni.h. */
#include <jni.h>
#include "kernels.h"

JNIEXPORT jdouble JNICALL Java_tkbench_emu_Kernels_fftNative(JNIEnv *env, jclass cls, jint scale) {
    (void)env; (void)cls;
    return kernel_fft(scale);
}

JNIEXPORT jdouble JNICALL Java_tkbench_emu_Kernels_luNative(JNIEnv *env, jclass cls, jint scale) {
    (void)env; (void)cls;
    return kernel_lu(scale);
}

JNIEXPORT jdouble JNICALL Java_tkbench_emu_Kernels_sorNative(JNIEnv *env, jclass cls, jint scale) {
    (void)env; (void)cls;
    return kernel_sor(scale);
}

JNIEXPORT jdouble JNICALL Java_tkbench_emu_Kernels_monteCarloNative(JNIEnv *env, jclass cls, jint scale) {
    (void)env; (void)cls;
    return kernel_monte_carlo(scale);
}

JNIEXPORT jdouble JNICALL Java_tkbench_emu_Kernels_sparseNative(JNIEnv *env, jclass cls, jint scale) {
    (void)env; (void)cls;
    return kernel_sparse(scale);
}

JNIEXPORT jint JNICALL Java_tkbench_emu_Kernels_cryptoNative(JNIEnv *env, jclass cls, jint scale) {
    (void)env; (void)cls;
    return (jint)kernel_crypto(scale);
}
