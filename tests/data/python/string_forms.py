"""Every form of Python string: findings must land on the right line and column."""

import subprocess


def escapes() -> None:
    # `\n` in a one-line literal: what follows it stays on this line of the file
    subprocess.run("echo start\necho next; pkill -f next_worker; true", shell=True)
    # `\t`, `\x41` and `\\` are wider in the source than in the value
    subprocess.run("printf '\t\x41\\'; pkill -f tab_worker; true", shell=True)
    # a `\u` escape and a non-ASCII character: columns count characters
    subprocess.run("echo \u00e9 é; pkill -f accent_worker; true", shell=True)


def triple() -> None:
    subprocess.run("""echo one
echo two; pkill -f triple_worker
echo three""", shell=True)


def raw() -> None:
    subprocess.run(r"echo \n\t; pkill -f raw_worker; true", shell=True)


def byte_string() -> None:
    subprocess.run(b"echo \xe9\n; pkill -f bytes_worker; true", shell=True)


def implicit() -> None:
    subprocess.run(
        "echo a; "  # a comment between the parts
        'pkill -f implicit_worker; '
        "echo b",
        shell=True,
    )


def continued() -> None:
    subprocess.run("echo a; \
pkill -f continued_worker; true", shell=True)


def plus(path: str) -> None:
    subprocess.run("echo a; " + "pkill -f plus_worker; " + path, shell=True)


def percent(path: str, mode: str) -> None:
    subprocess.run("chmod %s %s; pkill -f pct_worker; true" % (mode, path), shell=True)


def method_format(path: str) -> None:
    subprocess.run("ls {0} {{literal}}; rm {name}".format(path, name=path), shell=True)


TEMPLATE = "cat > {dest} << 'EOF'\n{body}\nEOF"


def bound_names(dest: str, body: str) -> None:
    cmd = f"cp {dest} {dest}.bak"
    subprocess.run(cmd, shell=True)
    subprocess.run(TEMPLATE.format(dest=dest, body=body), shell=True)


def nested_quotes(d: dict[str, str]) -> None:
    subprocess.run(f"ls {d['dir']}; pkill -f fs_worker; true", shell=True)
    subprocess.run(f'echo {d["x"]} {{braces}}; pkill -f fs2_worker; true', shell=True)


def triple_fstring(dest: str, body: str) -> None:
    subprocess.run(f"""mkdir -p /srv
cat > {dest} << 'EOF'
{body}
EOF
pkill -f triple_f_worker; true""", shell=True)
