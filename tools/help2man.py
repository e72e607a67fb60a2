#!/usr/bin/python3
"""gpuplan(1) from the binary's own help, so the man page and --help cannot drift.

usage: help2man.py GPUPLAN OUT.1

Runs `GPUPLAN --help`, then `GPUPLAN COMMAND --help` for every command that help lists, and
`GPUPLAN COMMAND SUB --help` for every subcommand whose help differs from its command's
(scenario draft, scenario measure). --help touches no database; it still runs with HOME,
XDG_DATA_HOME and GPUPLAN_DB pointed at an empty temporary folder to be sure.

The help's shape, which this relies on: blocks separated by blank lines; a block starting
"usage:" is a synopsis (continuation lines aligned under it); the main help lists commands
under a line "commands:" as "  NAME  SUMMARY"; lines indented by two spaces are examples.
"""
import os
import re
import subprocess
import sys
import tempfile

NAME_LINE = "own or rent GPUs: the cost of each, and when owning pays off"


def run_help(exe, args, env):
    p = subprocess.run([exe, *args, "--help"], env=env, capture_output=True, text=True)
    return p.returncode, p.stdout


def esc(text):
    """Roff-escape one line of text: backslashes, hyphens (so options copy as typed)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def blocks(text):
    out, cur = [], []
    for line in text.rstrip("\n").split("\n"):
        if line.strip():
            cur.append(line.rstrip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def synopsis(lines):
    """A usage block without "usage: ", its continuation lines kept aligned."""
    pad = len("usage: ")
    out = []
    for i, line in enumerate(lines):
        if i == 0 and line.startswith("usage: "):
            out.append(line[pad:])
        else:
            lead = len(line) - len(line.lstrip(" "))
            out.append(line[min(lead, pad):])
    return out


def nofill(lines):
    return [".nf"] + [esc(l) for l in lines] + [".fi"]


def body(text):
    """One command's help as roff: synopsis and examples verbatim, paragraphs filled."""
    out = []
    for b in blocks(text):
        if b[0].startswith("usage:"):
            out += [".PP"] + nofill(synopsis(b))
        elif all(l.startswith("  ") for l in b):
            out += [".PP", ".RS 2"] + nofill([l[2:] for l in b]) + [".RE"]
        else:
            out += [".PP"] + [esc(l.strip()) for l in b]
    return out


def main():
    exe, dest = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, HOME=tmp, XDG_DATA_HOME=tmp, GPUPLAN_DB=os.path.join(tmp, "x.db"),
                   LC_ALL="C.UTF-8")
        env.pop("NO_COLOR", None)
        rc, main_help = run_help(exe, [], env)
        if rc != 0 or "commands:" not in main_help:
            sys.exit(f"help2man: {exe} --help failed (exit {rc})")
        version = subprocess.run([exe, "--version"], env=env, capture_output=True,
                                 text=True, check=True).stdout.split()[1]

        pre, commands, post, state = [], [], [], "pre"
        for line in main_help.rstrip("\n").split("\n"):
            if state == "pre" and line == "commands:":
                state = "commands"
            elif state == "commands" and re.match(r"^  [a-z]", line):
                name, summary = line.strip().split(None, 1)
                commands.append((name, summary))
            elif state == "commands" and not line.strip():
                state = "post" if commands else state
            elif state == "pre":
                pre.append(line)
            else:
                post.append(line)
        if not commands:
            sys.exit("help2man: no commands in --help")

        out = [f'.TH GPUPLAN 1 "" "gpuplan {version}" "User Commands"',
               ".nh", ".ad l",
               ".SH NAME", "gpuplan \\- " + esc(NAME_LINE), ".SH SYNOPSIS"]
        pre_blocks = blocks("\n".join(pre))
        # The synopsis: the usage block and the indented lines right after it.
        syn = []
        while pre_blocks and (pre_blocks[0][0].startswith("usage:") or
                              pre_blocks[0][0].startswith(" ")):
            syn += ([""] if syn else []) + synopsis(pre_blocks.pop(0))
        out += nofill(syn)
        out += [".SH DESCRIPTION"]
        for b in pre_blocks:
            out += [".PP"] + [esc(l.strip()) for l in b]
        out += [".SH COMMANDS"]
        for name, summary in commands:
            out += [".TP", f"\\fB{esc(name)}\\fR", esc(summary)]
        out += [".PP", "Each command is described below, from its own \\fB\\-\\-help\\fR."]
        for line in post:  # the database, the exit status: a sentence a line, a paragraph each
            if line.strip():
                out += [".PP", esc(line.strip())]

        for name, _ in commands:
            rc, text = run_help(exe, [name], env)
            if rc != 0 or not text.strip():
                sys.exit(f"help2man: {exe} {name} --help failed (exit {rc})")
            out += [".SH " + esc(name.upper())] + body(text)
            subs = sorted(set(re.findall(rf"gpuplan {re.escape(name)} ([a-z]+)(?: |$)", text, re.M)))
            for sub in subs:
                rc, sub_text = run_help(exe, [name, sub], env)
                if rc == 0 and sub_text.strip() and sub_text != text:
                    out += [".SS " + esc(f"gpuplan {name} {sub}")] + body(sub_text)

        out += [".SH SEE ALSO",
                "The README and docs/ of the gpuplan sources: planning and the cost model, the",
                "catalog, telemetry and capacity, the workbook, the TUI's keys."]
    tmp_out = dest + ".tmp"
    with open(tmp_out, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp_out, dest)


if __name__ == "__main__":
    main()
