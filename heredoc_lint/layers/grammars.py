"""The wrapper table as data: how each tool's command line runs another command.

One `Form` per way a tool runs a command (`docker exec`, `docker compose run`,
`kubectl exec`, `pdsh`, `ansible -m shell -a`...), read from the tool's manual or its
own `--help`: its options and which take a value, the subcommand words that select the
form, the operands before the command (container, pod, service, image), where the command
starts, and what runs it: an argv (no shell: the command's own words, looked through to
the next wrapper, as `docker exec c sh -c S` is the `sh -c` layer in the container), or a
string that a shell parses (the words joined, or one option's value).

An option a row does not list makes the shape unknown, and `wrappers.resolve` then gives
no layer: a missing option costs a finding, never a wrong one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from heredoc_lint.shell.names import SHELLS

Takes = Literal["argv", "words", "option"]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True)
class Form:
    """One way a command runs another: a row of the wrapper table."""

    command: str  # the command's name, without its directory
    path: tuple[str, ...]  # the subcommand words that select this form: ("compose", "exec")
    manual: str  # where the grammar was read
    values: frozenset[str]  # options that take a value: `-n NS`, `-nNS`, `--namespace=NS`
    flags: frozenset[str]  # options that take none
    takes: Takes  # argv: the rest is a command line; words: joined, a shell parses them;
    # option: one option's value is a string a shell parses
    operands: int = 0  # words between the options and the command: container, pod, image
    option: frozenset[str] = frozenset()  # takes="option": the options holding the string
    optional: frozenset[str] = frozenset()  # a value only attached: `-m/proc/1/ns/mnt`
    dashdash: bool = False  # the command follows `--` only (kubectl exec)
    interspersed: bool = False  # options also after the operands, up to `--` (cobra)
    shell: str = "none"  # what parses a string: "sh", "bash", "login" (remote login shell)
    remote: bool = False  # another host or container
    apart: bool = False  # the command runs apart from the caller (Invocation.apart)
    stops: frozenset[str] = frozenset()  # words that end the command (parallel's `:::`)
    # Options that must be given (any spelling), with one of these values (any: empty).
    needs: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()
    forbids: frozenset[str] = frozenset()  # options that make the words something else

    @property
    def label(self) -> str:
        return " ".join((self.command, *self.path))


# -- containers: docker, podman, compose --------------------------------------------------
_DOCKER_GLOBAL_VALUES = _names(
    "--config -c --context -H --host -l --log-level --tlscacert --tlscert --tlskey"
)
_DOCKER_GLOBAL_FLAGS = _names("-D --debug --tls --tlsverify")
_DOCKER_EXEC_VALUES = _names("--detach-keys -e --env --env-file -u --user -w --workdir")
_DOCKER_EXEC_FLAGS = _names("-d --detach -i --interactive --privileged -t --tty")
# `docker run --help` (Docker 28): the options that take a value, and those that do not.
_DOCKER_RUN_VALUES = _names(
    "--add-host --annotation -a --attach --blkio-weight --blkio-weight-device --cap-add "
    "--cap-drop --cgroup-parent --cgroupns --cidfile --cpu-count --cpu-percent --cpu-period "
    "--cpu-quota --cpu-rt-period --cpu-rt-runtime -c --cpu-shares --cpus --cpuset-cpus "
    "--cpuset-mems --detach-keys --device --device-cgroup-rule --device-read-bps "
    "--device-read-iops --device-write-bps --device-write-iops --dns --dns-option "
    "--dns-search --domainname --entrypoint -e --env --env-file --expose --gpus --group-add "
    "--health-cmd --health-interval --health-retries --health-start-interval "
    "--health-start-period --health-timeout -h --hostname --io-maxbandwidth --io-maxiops --ip "
    "--ip6 --ipc --isolation --kernel-memory -l --label --label-file --link --link-local-ip "
    "--log-driver --log-opt --mac-address -m --memory --memory-reservation --memory-swap "
    "--memory-swappiness --mount --name --network --net --network-alias --oom-score-adj --pid "
    "--pids-limit --platform -p --publish --pull --restart --runtime --security-opt "
    "--shm-size --stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u "
    "--user --userns --uts -v --volume --volume-driver --volumes-from -w --workdir"
)
_DOCKER_RUN_FLAGS = _names(
    "-d --detach --disable-content-trust --init -i --interactive --no-healthcheck "
    "--oom-kill-disable --privileged -P --publish-all -q --quiet --read-only --rm "
    "--sig-proxy -t --tty --use-api-socket"
)
# docker compose(1) and docker-compose: global options, then `exec` / `run`.
_COMPOSE_VALUES = _names(
    "-f --file -p --project-name --project-directory --env-file --profile --ansi --progress "
    "--parallel"
)
_COMPOSE_FLAGS = _names("--compatibility --dry-run --all-resources")
_COMPOSE_EXEC_VALUES = _names("-e --env --index -u --user -w --workdir")
_COMPOSE_EXEC_FLAGS = _names(
    "-d --detach -i --interactive -T --no-TTY --no-tty --privileged -t --tty"
)
_COMPOSE_RUN_VALUES = _names(
    "--entrypoint -e --env --env-from-file -l --label --name -p --publish --pull -u --user "
    "-v --volume -w --workdir --cap-add --cap-drop"
)
_COMPOSE_RUN_FLAGS = _names(
    "--build -d --detach -i --interactive --no-deps -T --no-TTY --quiet-pull "
    "--remove-orphans --rm -P --service-ports --use-aliases -t --tty"
)


def _container_forms(command: str, manual: str) -> list[Form]:
    values = _DOCKER_GLOBAL_VALUES
    flags = _DOCKER_GLOBAL_FLAGS
    forms = []
    for prefix in ((), ("container",)):
        forms.append(
            Form(
                command,
                (*prefix, "exec"),
                f"{manual} exec [OPTIONS] CONTAINER COMMAND [ARG...]",
                values | _DOCKER_EXEC_VALUES,
                flags | _DOCKER_EXEC_FLAGS,
                "argv",
                operands=1,
                remote=True,
            )
        )
        forms.append(
            Form(
                command,
                (*prefix, "run"),
                f"{manual} run [OPTIONS] IMAGE [COMMAND] [ARG...]",
                values | _DOCKER_RUN_VALUES,
                flags | _DOCKER_RUN_FLAGS,
                "argv",
                operands=1,
                remote=True,
                forbids=_names("--entrypoint"),  # the words are then the entrypoint's
            )
        )
    return forms


def _compose_forms(command: str, path: tuple[str, ...], values: frozenset[str]) -> list[Form]:
    manual = " ".join((command, *path))
    return [
        Form(
            command,
            (*path, "exec"),
            f"{manual} exec [OPTIONS] SERVICE COMMAND [ARGS...]",
            values | _COMPOSE_VALUES | _COMPOSE_EXEC_VALUES,
            _DOCKER_GLOBAL_FLAGS | _COMPOSE_FLAGS | _COMPOSE_EXEC_FLAGS,
            "argv",
            operands=1,
            remote=True,
        ),
        Form(
            command,
            (*path, "run"),
            f"{manual} run [OPTIONS] SERVICE [COMMAND] [ARGS...]",
            values | _COMPOSE_VALUES | _COMPOSE_RUN_VALUES,
            _DOCKER_GLOBAL_FLAGS | _COMPOSE_FLAGS | _COMPOSE_RUN_FLAGS,
            "argv",
            operands=1,
            remote=True,
            forbids=_names("--entrypoint"),
        ),
    ]


# -- kubernetes: kubectl, oc --------------------------------------------------------------
# `kubectl options` (v1.3x): the flags every command takes, anywhere on the line.
_KUBE_GLOBAL_VALUES = _names(
    "--as --as-group --as-uid --cache-dir --certificate-authority --client-certificate "
    "--client-key --cluster --context --kubeconfig --log-flush-frequency -n --namespace "
    "--password --profile --profile-output --request-timeout -s --server --tls-server-name "
    "--token --user --username -v --v --vmodule"
)
_KUBE_GLOBAL_FLAGS = _names(
    "--disable-compression --insecure-skip-tls-verify --match-server-version --warnings-as-errors"
)


def _kube_forms(command: str) -> list[Form]:
    values, flags = _KUBE_GLOBAL_VALUES, _KUBE_GLOBAL_FLAGS
    return [
        Form(
            command,
            ("exec",),
            f"{command} exec (POD | TYPE/NAME) [-c CONTAINER] [flags] -- COMMAND [args...]",
            values | _names("-c --container -f --filename --pod-running-timeout"),
            flags | _names("-i --stdin -q --quiet -t --tty"),
            "argv",
            operands=1,
            dashdash=True,
            interspersed=True,
            remote=True,
        ),
        Form(
            command,
            ("debug",),
            f"{command} debug (POD | TYPE/NAME) [ -- COMMAND [args...] ]",
            values
            | _names(
                "-c --container --copy-to --custom --env -f --filename --image "
                "--image-pull-policy --profile --set-image --target"
            ),
            flags
            | _names(
                "--attach --keep-annotations --keep-init-containers --keep-labels "
                "--keep-liveness --keep-readiness --keep-startup -q --quiet --replace "
                "--same-node --share-processes -i --stdin -t --tty --arguments-only"
            ),
            "argv",
            operands=1,
            dashdash=True,
            interspersed=True,
            remote=True,
            forbids=_names("--arguments-only"),  # the words are then the image's arguments
        ),
        Form(
            command,
            ("run",),
            f"{command} run NAME --image=image [--command] -- [COMMAND] [args...]",
            values
            | _names(
                "--annotations --cascade --dry-run --env --field-manager -f --filename "
                "--grace-period --image --image-pull-policy -k --kustomize -l --labels -o "
                "--output --override-type --overrides --pod-running-timeout --port --restart "
                "--template --timeout"
            ),
            flags
            | _names(
                "--allow-missing-template-keys --attach --command --expose --force "
                "--leave-stdin-open --privileged -q --quiet -R --recursive --rm --save-config "
                "--show-managed-fields -i --stdin -t --tty --wait"
            ),
            "argv",
            operands=1,
            dashdash=True,
            interspersed=True,
            remote=True,
            needs=((_names("--command"), frozenset()),),  # without it the words are arguments
        ),
    ]


# -- system containers, namespaces, units --------------------------------------------------
def _lxc_form(command: str) -> Form:
    return Form(
        command,
        ("exec",),
        f"{command} exec [<remote>:]<instance> [flags] [--] <command line>",
        _names("--cwd --env --group --mode --user --project"),
        _names(
            "-n --disable-stdin -t --force-interactive -T --force-noninteractive --debug "
            "--force-local -q --quiet -v --verbose"
        ),
        "argv",
        operands=1,
        interspersed=True,
        remote=True,
    )


# ansible(1), ad-hoc: its options and which take a value.
_ANSIBLE_VALUES = _names(
    "-m --module-name -a --args -i --inventory -u --user --become-user --become-method -e "
    "--extra-vars -f --forks -l --limit -B --background -P --poll -T --timeout -t --tree -c "
    "--connection -M --module-path --private-key --key-file --vault-id --vault-password-file "
    "--ssh-common-args --ssh-extra-args --scp-extra-args --sftp-extra-args --playbook-dir "
    "--task-timeout"
)
_ANSIBLE_FLAGS = _names(
    "-b --become -k --ask-pass -K --ask-become-pass -o --one-line -v -vv -vvv -vvvv -C "
    "--check -D --diff"
)

FORMS: tuple[Form, ...] = (
    *_container_forms("docker", "docker(1):"),
    *_container_forms("podman", "podman(1):"),
    *_compose_forms("docker", ("compose",), _DOCKER_GLOBAL_VALUES),
    *_compose_forms("docker-compose", (), frozenset()),
    *_compose_forms("podman-compose", (), frozenset()),
    *_kube_forms("kubectl"),
    *_kube_forms("oc"),
    _lxc_form("lxc"),
    _lxc_form("incus"),
    Form(
        "mosh",
        (),
        "mosh(1), scripts/mosh.pl: mosh [options] [--] [user@]host [command...]: the command "
        "reaches mosh-server shell-quoted, which execs it",
        _names(
            "--client --server --predict --port -p --family --ssh --bind-server "
            "--experimental-remote-ip"
        ),
        _names("-a -n -4 -6 --init --no-init --local"),
        "argv",
        operands=1,
        interspersed=True,  # Getopt::Long permutes: options after the host too, up to `--`
        remote=True,
    ),
    Form(
        "nsenter",
        (),
        "nsenter(1), util-linux: nsenter [options] [program [arguments]]",
        _names("-t --target -S --setuid -G --setgid -W --wdns"),
        _names("-a --all --preserve-credentials -F --no-fork -Z --follow-context"),
        "argv",
        optional=_names(
            "-m --mount -u --uts -i --ipc -n --net -p --pid -C --cgroup -U --user -T --time "
            "-r --root -w --wd"
        ),
    ),
    Form(
        "systemd-run",
        (),
        "systemd-run(1): systemd-run [OPTIONS...] COMMAND [ARGUMENTS...]",
        _names(
            "-H --host -M --machine -u --unit -p --property --description --slice "
            "--service-type --uid --gid --nice --working-directory -E --setenv "
            "--path-property --socket-property --on-active --on-boot --on-startup "
            "--on-unit-active --on-unit-inactive --on-calendar --timer-property"
        ),
        _names(
            "--no-ask-password --user --system --scope --slice-inherit --no-block -r "
            "--remain-after-exit --wait --send-sighup -d --same-dir -t --pty -P --pipe -q "
            "--quiet -G --collect --on-timezone-change --on-clock-change"
        ),
        "argv",
        apart=True,  # a transient unit of the service manager, not the caller's child
    ),
    Form(
        "script",
        (),
        "script(1), util-linux: script [options] [file]: `-c command` is run by the "
        "user's $SHELL with -c (sh when SHELL is unset)",
        _names(
            "-I --log-in -O --log-out -B --log-io -T --log-timing -m --logging-format -c "
            "--command -E --echo -o --output-limit"
        ),
        _names("-a --append -e --return -f --flush --force -q --quiet"),
        "option",
        option=_names("-c --command"),
        optional=_names("-t --timing"),  # `-t[file]`, `--timing[=file]`
        shell="sh",
    ),
    Form(
        "adb",
        ("shell",),
        "adb --help (Android platform-tools): adb [-a] [-d] [-e] [-s SERIAL] [-t ID] [-H HOST] "
        "[-P PORT] [-L SOCKET] shell [-e ESCAPE] [-n] [-Tt] [-x] [COMMAND...]: the words are "
        "joined with spaces and the device's sh runs them",
        _names("-s -t -H -P -L"),
        # `-e` is the global flag (the emulator) far more often than shell's escape option
        _names("-a -d -e -n -T -t -x"),
        "words",
        shell="sh",
        remote=True,
    ),
    # -- command strings run on many hosts -------------------------------------------------
    Form(
        "pdsh",
        (),
        "pdsh(1): pdsh [options]... command",
        _names("-w -x -g -X -R -l -t -u -f -F -M"),
        _names("-S -b -d -q -V -L -a -A -N -i"),
        "words",
        shell="login",
        remote=True,
    ),
    *(
        Form(
            name,
            (),
            f"{name} --help (pssh 2.3): {name} [OPTIONS] command [...]: the words are joined "
            "and sent by ssh to each host's login shell",
            _names(
                "-h --hosts -H --host -l --user -p --par -o --outdir -e --errdir -t --timeout "
                "-O --option -x --extra-args -X --extra-arg"
            ),
            _names(
                "-v --verbose -A --askpass -i --inline --inline-stdout -I --send-input -P --print"
            ),
            "words",
            shell="login",
            remote=True,
        )
        for name in ("pssh", "parallel-ssh")  # the same program: Debian names it parallel-ssh
    ),
    Form(
        "clush",
        (),
        "clush(1), ClusterShell: clush [options] command",
        _names(
            "-w -x -g --group -X -l --user -f --fanout -t --connect_timeout -u "
            "--command_timeout -O --option -R --worker --hostfile --topology --pick -o "
            "--options --color"
        ),
        _names("-a --all -b --dshbak -B -d --debug -L -N -q --quiet -S -v --verbose --nostdin"),
        "words",
        shell="login",
        remote=True,
    ),
    Form(
        "parallel",
        (),
        "parallel(1), GNU: parallel [options] [command [arguments]] ( ::: arguments | "
        ":::: argfile(s) ) ...: a shell runs the command line it builds",
        _names(
            "-j --jobs -P --max-procs -I -a --arg-file -d --delimiter -E -n --max-args -N "
            "-L --max-lines -s --max-chars --colsep -C --timeout --delay --joblog --results "
            "--res --workdir --wd --retries --halt --tagstring --env --basefile --bf "
            "--return --load --memfree --block --header --sshdelay --termseq --id"
        ),
        _names(
            "-k --keep-order --tag -v --verbose --eta --bar --progress --dry-run "
            "--line-buffer --lb -u --ungroup --group -0 --null -r --no-run-if-empty -X -m "
            "--will-cite --no-notice --plus --shuf --halt-on-error"
        ),
        "words",
        shell="bash",
        stops=_names("::: :::+ :::: ::::+"),
        forbids=_names("-q --quote -S --sshlogin --slf --sshloginfile --onall --nonall"),
    ),
    Form(
        "ansible",
        (),
        "ansible(1): ansible <pattern> -m shell -a <command>: the shell module runs it with "
        "/bin/sh",
        _ANSIBLE_VALUES,
        _ANSIBLE_FLAGS,
        "option",
        option=_names("-a --args"),
        shell="sh",
        remote=True,
        needs=((_names("-m --module-name"), _names("shell ansible.builtin.shell")),),
    ),
    Form(
        "ansible",
        (),
        "ansible(1): ansible <pattern> -m raw -a <command>: the raw module runs it over ssh",
        _ANSIBLE_VALUES,
        _ANSIBLE_FLAGS,
        "option",
        option=_names("-a --args"),
        shell="login",
        remote=True,
        needs=((_names("-m --module-name"), _names("raw ansible.builtin.raw")),),
    ),
)


# Tools that run a command in a shape no row can hold (ssh's option letters and its host,
# `su -c`, `find -exec ... ;`, tmux's subcommands ...), each with the name of its reader in
# wrappers.py: named here so that this module lists every command that starts a layer.
READERS: dict[str, str] = {
    "ssh": "ssh",
    "autossh": "autossh",
    "gcloud": "gcloud",  # gcloud compute ssh --command
    "vagrant": "vagrant",  # vagrant ssh -c
    "eval": "eval",
    "su": "su",
    "runuser": "su",
    "flock": "flock",
    "find": "find",
    "tmux": "tmux",
    "watch": "watch",
}

# The commands that start a layer themselves: the rows', the readers' and the shells'.
# (The prefixes of wrappers.py, `sudo`, `env`, `xargs` ..., look through to one of these.)
LAYER_COMMANDS = frozenset(READERS) | frozenset(form.command for form in FORMS) | SHELLS


def forms_by_command() -> dict[str, tuple[Form, ...]]:
    table: dict[str, list[Form]] = {}
    for form in FORMS:
        table.setdefault(form.command, []).append(form)
    return {name: tuple(forms) for name, forms in table.items()}
