#!/usr/bin/python3
"""config-examples.py: the example configuration files, made from the
programs' option tables so that they list every option with its default.

    scripts/config-examples.py --build BUILDDIR [--map FROM=TO]... (--check | --write)

The option tables are what `ibacm --check-config`, `ibssa --check-config`
and `ibssa --check-plugin-config` print for an empty file: every option the
daemon, each provider, ibssa and the OpenSM plugin read, with its default.
The examples keep their comments (the descriptions are written by hand);
this program writes each option's line from the table:

- etc/acm_opts.cfg ([core] and one section per provider) and
  etc/ibssa_opts.cfg: "key = default" for every option line not commented
  out, "# key =" for an option whose default is empty (unset); a
  commented line with a value is an example of one the default does not
  have (a path, a file to read, a repeated key) and stays as written;
- etc/opensm-ibssa.conf: the "#   key=default   description" list of the
  plugin's options.

An option the file does not name yet is added at the end of its section,
with a line saying it is not described yet; an option line the program
does not know is an error. --map FROM=TO replaces the build's configured
directories in the defaults with the ones the man pages name (`make
update-config-examples` maps the build's to /etc/rdma and
/usr/lib/<triplet>/ibacm-ssa). --check prints the differences and exits 1
when a file is not what the tables make; --write rewrites the files.
"""
import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNDESCRIBED = "# (not described here yet: see the man page)"


def parse_dump(text):
    """'[section]' and 'key = value   # source' lines -> {section: {key:
    value}}; None for a value that is not the default (the file this
    program wrote set it: provider_lib_path)."""
    out, section = {}, None
    for line in text.split("\n"):
        m = re.match(r"^\[([^\]]+)\]$", line)
        if m:
            section = m.group(1)
            out.setdefault(section, {})
            continue
        if section is None or line.startswith("#") or " = " not in line:
            continue
        key, rest = line.split(" = ", 1)
        value, _, source = rest.rpartition(" # ")
        out[section][key.strip()] = value.strip() if source.strip() == "default" else None
    return out


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("config-examples: %s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def dumps(build):
    """The option tables of the built programs, each an empty file's defaults."""
    tmp = tempfile.mkdtemp(prefix="config-examples-")
    try:
        empty = os.path.join(tmp, "empty.cfg")
        open(empty, "w").close()
        prov = os.path.join(tmp, "providers")
        acm_cfg = os.path.join(tmp, "acm.cfg")
        with open(acm_cfg, "w") as f:
            f.write("[core]\nprovider_lib_path = %s\n" % prov)
        os.mkdir(prov)
        for p in ["sa", "acmp", "ssa", "upstream"]:
            so = os.path.join(build, "providers", p, ".libs", p + ".so")
            if not os.path.exists(so):
                sys.exit("config-examples: %s is not built" % so)
            os.symlink(so, os.path.join(prov, p + ".so"))
        acm = run([os.path.join(build, "core", "ibacm"), "--check-config", "-O", acm_cfg])
        ibssa = run([os.path.join(build, "distrib", "ibssa"), "--check-config", "-O", empty])
        plugin = run([os.path.join(build, "distrib", "ibssa"), "--check-plugin-config", empty])
    finally:
        shutil.rmtree(tmp)
    return parse_dump(acm), parse_dump(ibssa), parse_dump(plugin)


def option_line(line):
    """(commented, key, value) of a 'key = value' line, else None."""
    m = re.match(r"^(#\s?)?([a-z][a-z0-9_]*)\s*=\s*(.*)$", line)
    if not m:
        return None
    return (m.group(1) is not None, m.group(2), m.group(3))


def fill_ini(name, text, table, default_section):
    """The INI example with every option's line made from `table`."""
    lines = text.rstrip("\n").split("\n")
    errors = []
    # Sections: (name, first line index, commented).
    out, section, seen, last_option, commented_sections = [], default_section, {}, {}, set()
    for i, line in enumerate(lines):
        m = re.match(r"^(#\s*)?\[([a-z_]+)\]\s*$", line)
        if m:
            section = m.group(2)
            if m.group(1):
                commented_sections.add(section)
            out.append(line)
            continue
        opt = option_line(line)
        keys = table.get(section, {})
        if opt and opt[1] in keys:
            commented, key, value = opt
            seen.setdefault(section, set()).add(key)
            last_option[section] = len(out)
            default = keys[key]
            # "# key =" is the line of an empty default, not an example.
            if default is None or (commented and (opt[2] != "" or default == "")):
                out.append(line)
            else:
                # An empty default is no value: a path may not be empty.
                out.append("%s = %s" % (key, default) if default else "# %s =" % key)
            continue
        if opt and not opt[0] and section in table:
            errors.append("%s:%d: '%s' is not an option of [%s]" % (name, i + 1, opt[1], section))
        out.append(line)
    # Options the file does not name: after the last option of their section.
    inserts = []
    for sec, keys in table.items():
        missing = [k for k in sorted(keys) if k not in seen.get(sec, set())]
        if not missing:
            continue
        block = []
        # A section the example shows commented out gets its options so.
        hash_ = "# " if sec in commented_sections else ""
        for k in missing:
            v = keys[k]
            block += [UNDESCRIBED, ("# %s =" % k) if not v else hash_ + "%s = %s" % (k, v)]
        if sec in last_option:
            inserts.append((last_option[sec] + 1, block))
        else:
            inserts.append((len(out), ["", "[%s]" % sec] + block))
    for at, block in sorted(inserts, key=lambda x: -x[0]):
        out[at:at] = block
    return "\n".join(out) + "\n", errors


def osm_line(key, value, desc):
    head = "#   %s=%s" % (key, value)
    return (head.ljust(30) + desc if len(head) < 30 else head + " " + desc).rstrip()


# Words of event_plugin_options that are no option of the table: another
# file of options.
OSM_EXTRA = {"config"}


def fill_osm(name, text, keys):
    """The OpenSM example: its '#   key=default   description' list made
    from the plugin's table; the event_plugin_options line checked."""
    lines = text.rstrip("\n").split("\n")
    out, seen, last, errors = [], set(), None, []
    for i, line in enumerate(lines):
        m = re.match(r"^#   ([a-z][a-z0-9_]*)=(\S*)(?:\s+(.*))?$", line)
        if m:
            key, desc = m.group(1), m.group(3) or ""
            if key in OSM_EXTRA:
                out.append(line)
                last = len(out)
                continue
            if key not in keys:
                errors.append("%s:%d: '%s' is not an option of the plugin" % (name, i + 1, key))
                out.append(line)
                continue
            seen.add(key)
            out.append(osm_line(key, keys[key], desc))
            last = len(out)
            continue
        m = re.match(r"^event_plugin_options\s+(.*)$", line)
        if m:
            for word in re.split(r"[\s,]+", m.group(1).strip()):
                if word and word.split("=", 1)[0] not in keys and word.split("=", 1)[0] not in OSM_EXTRA:
                    errors.append("%s:%d: '%s' is not an option of the plugin" % (name, i + 1, word))
        out.append(line)
    missing = [k for k in sorted(keys) if k not in seen]
    if missing and last is None:
        errors.append("%s: no '#   key=default' list of the plugin's options" % name)
    elif missing:
        out[last:last] = [osm_line(k, keys[k], "(see ibssa_osm(7))") for k in missing]
    return "\n".join(out) + "\n", errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="a configured and built build directory")
    ap.add_argument("--srcdir", default=ROOT)
    ap.add_argument("--map", action="append", default=[], metavar="FROM=TO")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    args = ap.parse_args()

    acm, ibssa, plugin = dumps(args.build)
    maps = [m.split("=", 1) for m in args.map]

    def mapped(table):
        for sec in table.values():
            for k, v in sec.items():
                for a, b in maps:
                    if v is not None and a and a != b:
                        v = v.replace(a, b)
                sec[k] = v
        return table

    acm, ibssa, plugin = mapped(acm), mapped(ibssa), mapped(plugin)
    jobs = [
        ("etc/acm_opts.cfg", lambda n, t: fill_ini(n, t, acm, "core")),
        ("etc/ibssa_opts.cfg", lambda n, t: fill_ini(n, t, ibssa, "ibssa")),
        ("etc/opensm-ibssa.conf", lambda n, t: fill_osm(n, t, plugin.get("ibssa_osm", {}))),
    ]
    status = 0
    for rel, fill in jobs:
        path = os.path.join(args.srcdir, rel)
        with open(path) as f:
            text = f.read()
        new, errors = fill(rel, text)
        for e in errors:
            print("config-examples: " + e, file=sys.stderr)
            status = 1
        if new == text:
            continue
        if args.write:
            with open(path, "w") as f:
                f.write(new)
            print("config-examples: wrote " + rel)
        else:
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True),
                                                       rel, rel + " (from the option tables)"))
            print("config-examples: %s is not what the option tables make; "
                  "`make update-config-examples` rewrites it" % rel, file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
