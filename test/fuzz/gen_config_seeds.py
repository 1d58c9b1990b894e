#!/usr/bin/env python3
# gen_config_seeds.py: writes the seed corpus of the config fuzzer
# (test/fuzz/corpus/config/): the shipped option files and small examples
# of each format the fuzzer reads, each behind the byte that picks the
# reader (0 option file, 1 ibacm_addr.cfg, 2 hosts file, 3 plugin options).
#
# The seeds are committed; rerun this only to change them:
#   python3 test/fuzz/gen_config_seeds.py test/fuzz/corpus/config
import os
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

SAMPLES = {
    "upstream_opts": (0, "# upstream\nlog_file /var/log/ibacm.log\nlog_level 0\n"
                         "provider ibacmp 0xFE80000000000000\nroute_prot sa\n"),
    "ini_opts": (0, "[core]\nlog_level = debug\n\n[sa]\ncache_ttl_s = 30\n"
                    "[ssa]\nfallback = sa\n"),
    "addr_cfg": (1, "# address device port pkey\nnode1 ibsim0 1 default\n"
                    "10.0.0.1 ibsim0 1 0xffff\nfe80::1 ibsim0 1 default\n"),
    "hosts": (2, "# address GID\nnode1 fe80::2:c903:0:1\n10.0.0.1 fe80::2:c903:0:1\n"
                 "fd00::1 fe80::2:c903:0:2\nNODE2 fe80::2:c903:0:2\n"),
    "plugin_options": (3, "dump_dir=/tmp/dump keep=4 core=1 listen=127.0.0.1:0 lease_s=3 "
                          "hosts_file=/etc/rdma/ibacm_hosts.data log_level=debug"),
}

SHIPPED = {
    "etc_acm_opts": (0, "etc/acm_opts.cfg"),
    "etc_ibssa_opts": (0, "etc/ibssa_opts.cfg"),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "test/fuzz/corpus/config")
    os.makedirs(out, exist_ok=True)
    for name, (reader, text) in SAMPLES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([reader]) + text.encode())
    for name, (reader, path) in SHIPPED.items():
        with open(os.path.join(TOP, path), "rb") as src:
            data = src.read()
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([reader]) + data)


if __name__ == "__main__":
    main()
