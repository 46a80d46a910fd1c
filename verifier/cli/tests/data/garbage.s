this is not eBPF assembly
