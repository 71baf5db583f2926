"""Inputs shared by the emulator benchmarks (emu-managed.sh, emu-fork.py)."""


def write_text_4mb(path):
    """Writes the busybox rows' input: 4 MB of deterministic text lines."""
    with open(path, "w") as f:
        x = 12345
        while f.tell() < 4 << 20:
            x = (x * 1103515245 + 12345) & 0x7FFFFFFF
            f.write(f"{x:010d} line {x % 977}\n")
    return path
