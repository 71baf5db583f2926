/* Baseline for scripts/bench/emu.sh: the cheapest possible counting plugin,
 * one inline add per executed block into a single global counter, no
 * logging and no disassembly. Its slowdown is the floor any block-counting
 * QEMU 7.2 plugin pays; tracekit's plugin is measured against it.
 * The few QEMU plugin API (v1) entry points are declared here by hand. */
#include <stdint.h>

typedef uint64_t plugin_id;
struct qemu_plugin_tb;
extern void qemu_plugin_register_vcpu_tb_trans_cb(plugin_id id,
                                                  void (*cb)(plugin_id, struct qemu_plugin_tb *));
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, int op,
                                                     void *ptr, uint64_t imm);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed_blocks;

static void on_translate(plugin_id id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, 0 /* INLINE_ADD_U64 */, &executed_blocks, 1);
}

__attribute__((visibility("default"))) int qemu_plugin_install(plugin_id id, const void *info,
                                                               int argc, char **argv) {
    (void)info; (void)argc; (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    return 0;
}
