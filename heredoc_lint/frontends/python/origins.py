"""Where a run-time value comes from, and whether it is meant as shell text.

HL201 warns only where the file shows that a value comes from outside the program
(the command line, the environment, configuration, input, a parameter of a public
function): `evidence` says which, in words for the message.  A value built from
shell text (a glob, an option string, `~`, `$VAR`) or named as a command or its
options is meant for the shell to read: `shell_text` says which.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from heredoc_lint.frontends.python.callers import UNKNOWN, Callers, argument_for
from heredoc_lint.frontends.python.scopes import LoopValue, Scope, follow
from heredoc_lint.frontends.python.values import (
    MAX_DEPTH,
    choices,
    numeric,
    provably_safe,
    qualname,
)

_ENVIRONMENT = frozenset({"os.environ", "os.environb"})
_ENVIRONMENT_CALLS = frozenset({"os.getenv", "os.environ.get", "os.getenvb"})
_CONFIG_CALLS = frozenset(
    {
        "json.load",
        "json.loads",
        "yaml.load",
        "yaml.safe_load",
        "yaml.full_load",
        "tomllib.load",
        "tomllib.loads",
        "toml.load",
        "toml.loads",
    }
)
_CONFIG_NAMES = re.compile(r"(?:config|conf|cfg|settings|env|environ)\Z", re.IGNORECASE)
_REQUEST_PARTS = frozenset(
    {"args", "form", "values", "json", "get_json", "data", "cookies", "headers", "files"}
)
# What a web framework's request object holds from the client, by attribute: Django's
# `request.POST`, DRF's `request.data`, Starlette's `request.query_params`, aiohttp's
# `request.match_info`. Read on a name `request` or on `self.request` (class-based views).
_REQUEST_OBJECT_PARTS = _REQUEST_PARTS | frozenset(
    {"GET", "POST", "body", "FILES", "COOKIES", "META", "query_params", "path_params"}
    | {"match_info", "query", "post", "arguments", "body_arguments", "query_arguments"}
)
# Decorators that make a function the handler of an HTTP route: its parameters are the
# client's (`@app.route("/svc/<name>")`, `@router.get("/items/{item}")`).
_ROUTE_DECORATORS = frozenset(
    {"route", "get", "post", "put", "delete", "patch", "api_route", "websocket"}
)
_LOOKUPS = frozenset({"get", "getlist", "pop", "getvalue"})
# Methods that read what their receiver holds (`response.json()`, `resp.read()`).
_READS = frozenset({"json", "read", "readline", "readlines", "iter_lines", "iter_content"})
# HTTP clients: what their requests return is the network's text.
_HTTP_CLIENTS = ("requests.", "httpx.", "urllib.request.urlopen", "urllib2.urlopen")
# Variables a batch scheduler or MPI launcher sets for the job it starts (`SLURM_NODELIST`,
# `OMPI_COMM_WORLD_RANK`): host lists, ids and counts of the program's own job, not input;
# and those snapd sets for a snap's commands (`SNAP` is `/snap/NAME/REVISION`).
_SCHEDULER_VARIABLE = re.compile(
    r"(?:(?:SLURM|PBS|LSB|OMPI|PMI|PMIX|SGE|COBALT|FLUX)_[A-Z0-9_]+|SNAP(?:_[A-Z0-9_]+)?)\Z"
)
_CLI_PARSERS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
# Text that only the shell gives a meaning to: the author meant the shell to read it.
_GLOB = re.compile(r"[*?]|\[[^\]]*\]")
_OPERATORS = re.compile(r"[;|&<>]|\$\(")
_SHELL_NAMES = re.compile(
    r"(?:\A|_)(?:cmd|cmds|command|commands|cmdline|args|opts|options|flags|script)\Z",
    re.IGNORECASE,
)
# Helpers whose name says they make shell text or a path of their own from what they are
# given (`build_remote_shell_path`, `create_temp_file`): their result is not that input.
_MAKES_ITS_OWN = re.compile(r"quote|escape|shell|safe|temp|tmp", re.IGNORECASE)
# Methods whose value is their receiver's text, changed (their arguments are not in it).
_SAME_TEXT = frozenset(
    {"strip", "lstrip", "rstrip", "lower", "upper", "decode", "encode", "split", "rsplit"}
)


# Containers a function fills after binding them (`items = []`, `seen = set()`).
_CONTAINERS = (ast.List, ast.Set, ast.ListComp, ast.SetComp)

# The words of `evidence` for text that may hold anything: what the network, a person at
# the keyboard or an HTTP client sent. A chain of calls keeps its origin's words first.
_FREE_TEXT = ("it is read from", "it comes from an HTTP request")
_PARAMETER = "it comes from a parameter of the public function"
_EXAMPLE = " (the file calls it only with a literal example, line"
# How far `evidence` follows a value: farther than `values.MAX_DEPTH`, as outside data often
# reaches a command through a reply, a loop, a caller and a few rebindings.
_DEPTH = 2 * MAX_DEPTH


# The kind of each `evidence` (heredoc_lint.severities' HL201 rows), by its first words.
_KINDS = (
    ("it comes from the command line", "argv"),
    ("it is a command-line option", "cli-option"),
    ("it comes from an HTTP request", "request"),
    ("it is read from the network", "network"),
    ("it is read from standard input", "input"),
    ("it is read from input", "input"),
    ("it comes from the environment", "environment"),
    ("it comes from configuration", "config"),
    (_PARAMETER, "parameter"),
)


KINDS = frozenset(name for _, name in _KINDS)


def kind(evidence: str) -> str:
    """The short stable name of what `evidence` (not empty) says of the value's origin."""
    for words, name in _KINDS:
        if evidence.startswith(words):
            return name
    raise ValueError(f"evidence of no known kind: {evidence!r}")


def free_text(evidence: str) -> bool:
    """Whether `evidence` says the value is text from outside that may hold anything."""
    return evidence.startswith(_FREE_TEXT)


def only_a_parameter(evidence: str) -> bool:
    """Whether the only evidence is that the value is a public function's parameter."""
    return evidence.startswith(_PARAMETER)


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ""


def _key(node: ast.expr) -> str:
    """The string key of a subscript (`job["cmd"]`), or ""."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        value = node.slice.value
        return value if isinstance(value, str) else ""
    return ""


def _parts(node: ast.expr, imports: Mapping[str, str]) -> list[ast.expr]:
    """The expressions a string-building expression is made of (`a + b`, f-strings...)."""
    if isinstance(node, ast.JoinedStr):
        return [v.value if isinstance(v, ast.FormattedValue) else v for v in node.values]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        right = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        return [node.left, *right]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    if isinstance(node, ast.Call):
        return _call_parts(node, imports)
    return []


def _call_parts(node: ast.Call, imports: Mapping[str, str]) -> list[ast.expr]:
    """`_parts` of a call that builds text: a path of its arguments, `str()`, `.join`,
    `.format`, `.replace`, or a method that changes its receiver's text."""
    name = qualname(node.func, imports) or ""
    func = node.func
    args = [*node.args, *(k.value for k in node.keywords)]
    if name.startswith(("os.path.", "posixpath.")) or name in ("str", "pathlib.Path"):
        return args
    if isinstance(func, ast.Name) and func.id == "str" and func.id not in imports:
        return args
    if isinstance(func, ast.Attribute) and func.attr in ("join", "format"):
        return [func.value, *args]
    if isinstance(func, ast.Attribute) and func.attr == "replace":
        return [func.value, *node.args[1:2]]  # the text put in, not the text taken out
    if isinstance(func, ast.Attribute) and func.attr in _SAME_TEXT:
        return [func.value]
    return []


def _bound(node: ast.Name, scope: Scope) -> list[tuple[ast.expr, Scope]]:
    """The values `node` is bound to in the scope that owns it (loop items excluded)."""
    owner = scope.owner(node.id)
    if owner is None:
        return []
    return [(v, owner) for v in owner.bindings[node.id] if v is not None]


def evidence(
    node: ast.expr,
    scope: Scope,
    imports: Mapping[str, str],
    depth: int = 0,
    seen: dict[int, int] | None = None,
    callers: Callers | None = None,
) -> str:
    """Why `node`'s value comes from outside the program, as words; "" if nothing shows it."""
    seen = {} if seen is None else seen
    if depth > _DEPTH or seen.get(id(node), _DEPTH + 1) <= depth:
        return ""
    # A node is read again only from a shorter path: a name bound from itself (`p =
    # p.strip()`) is read once, and a path that ran out of depth does not hide the node
    # from a shorter one (a parameter reached through its rebindings, then its callers).
    seen[id(node)] = depth
    if _scheduler_variable(node, imports) or _numeric_option(node, scope, callers):
        return ""
    direct = _direct_evidence(node, scope, imports)
    if direct:
        return direct
    if isinstance(node, ast.Name):
        return _name_evidence(node, scope, imports, depth, seen, callers)
    if isinstance(node, ast.Attribute) and _on_self(node, scope) and callers is not None:
        return _attribute(node.attr, imports, depth, seen, callers)
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return evidence(node.value, scope, imports, depth + 1, seen, callers)
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(func, ast.Attribute) and func.attr in _LOOKUPS | _READS:  # `.get(...)`
        return evidence(func.value, scope, imports, depth + 1, seen, callers)
    for part in _parts(node, imports):
        found = evidence(part, scope, imports, depth + 1, seen, callers)
        if found:
            return found
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return _through_helper(node, node.func.id, scope, imports, depth, seen, callers)
    return ""


def _name_evidence(
    node: ast.Name,
    scope: Scope,
    imports: Mapping[str, str],
    depth: int,
    seen: dict[int, int],
    callers: Callers | None,
) -> str:
    """`evidence` of a name: what it is bound to, what is put in it, or its callers'."""
    for value, owner in _bound(node, scope):
        if isinstance(value, LoopValue):
            value = value.iter
        # A name bound to another name is no step deeper (`seen` ends a cycle): the
        # evidence at the end of a long chain of aliases is still found.
        step = 0 if isinstance(value, ast.Name) else 1
        found = evidence(value, owner, imports, depth + step, seen, callers)
        if found:
            return found
        if isinstance(value, _CONTAINERS) and callers is not None:
            # `items = []` then `items.append(reply["text"])`: what is put in it.
            for item in callers.added(node.id, value):
                found = evidence(item, owner, imports, depth + 1, seen, callers)
                if found:
                    return f"{found}, added to `{node.id}`"
    return _parameter(node, scope, imports, depth, seen, callers)


def _through_helper(
    node: ast.Call,
    helper: str,
    scope: Scope,
    imports: Mapping[str, str],
    depth: int,
    seen: dict[int, int],
    callers: Callers | None,
) -> str:
    """A helper of the file's own made the value from its arguments (`get_dir(args.tmp)`,
    `parse_paths(paths)`): what it was made from is where it comes from, unless the
    helper returns it quoted (`return shlex.quote(p)`) or makes its own."""
    if _MAKES_ITS_OWN.search(helper):
        return ""
    if callers is not None and callers.quotes_its_result(helper):
        return ""
    for argument in node.args:
        found = evidence(argument, scope, imports, depth + 1, seen, callers)
        if found:
            return f"{found}, through `{helper}()`"
    return ""


def _on_self(node: ast.Attribute, scope: Scope) -> bool:
    """`self.x` in a method: `self` is the first parameter of a function of a class."""
    if not isinstance(node.value, ast.Name):
        return False
    owner = scope.owner(node.value.id)
    return (
        owner is not None
        and owner.params[:1] == [node.value.id]
        and owner.parent is not None
        and owner.parent.is_class
    )


def _attribute(
    name: str, imports: Mapping[str, str], depth: int, seen: dict[int, int], callers: Callers
) -> str:
    """Where `self.NAME` comes from: what the class's methods assign to it.

    Only a source outside the program counts: a method's parameter stored on `self` is
    no evidence by itself, as the objects' callers are not in sight."""
    for value, owner in callers.attribute(name):
        found = evidence(value, owner, imports, depth + 1, seen, callers)
        if found and not only_a_parameter(found):
            return f"{found}, through `self.{name}`"
    return ""


def _scheduler_variable(node: ast.expr, imports: Mapping[str, str]) -> bool:
    """`os.environ["SLURM_NODELIST"]`, `os.getenv("PMI_RANK")`: set by the job's launcher."""
    if isinstance(node, ast.Subscript):
        container, key = node.value, node.slice
    elif isinstance(node, ast.Call) and node.args:
        container, key = node.func, node.args[0]
    else:
        return False
    name = qualname(container, imports) or ""
    known = name in _ENVIRONMENT or name in _ENVIRONMENT_CALLS
    return (
        known
        and isinstance(key, ast.Constant)
        and isinstance(key.value, str)
        and _SCHEDULER_VARIABLE.match(key.value) is not None
    )


def _numeric_option(node: ast.expr, scope: Scope, callers: Callers | None) -> bool:
    """`args.port` where `args = parser.parse_args()` and `--port` is declared `type=int`."""
    if callers is None or not isinstance(node, ast.Attribute):
        return False
    if node.attr not in callers.numeric_options():
        return False
    if not isinstance(node.value, ast.Name):
        return False
    value, _, _ = follow(node.value, scope)
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in _CLI_PARSERS
    )


# What a heredoc's body gives a meaning to: a line break (the delimiter is a line of its
# own) and, when the delimiter is unquoted, `$`, backticks and backslashes.
_BODY_SPECIAL = frozenset("\n$`\\")
# Operators whose result is a number or the operands' text put together (not `%`, whose
# `%r` may write a backslash).
_JOINING = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Pow)


def plain_text(
    node: ast.expr,
    scope: Scope,
    imports: Mapping[str, str],
    callers: Callers | None = None,
    depth: int = 0,
) -> bool:
    """Whether the text of `node` holds no line break, `$`, backtick or backslash, whatever
    happens at run time: a number (an option declared `type=int` too), `str()` of one, a
    literal without them, an f-string, a sum or a `join` of such values."""
    if depth > MAX_DEPTH:
        return False
    if numeric(node, scope, imports, depth) or _numeric_option(node, scope, callers):
        return True
    more = depth + 1
    if isinstance(node, ast.Constant):  # numbers are numeric's
        return isinstance(node.value, str) and not _BODY_SPECIAL.intersection(node.value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, _JOINING):
        return all(
            plain_text(side, scope, imports, callers, more) for side in (node.left, node.right)
        )
    if isinstance(node, ast.JoinedStr):
        return all(_plain_part(part, scope, imports, callers, more) for part in node.values)
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        return _plain_call(node, scope, imports, callers, more)
    if isinstance(node, (ast.Name, ast.IfExp)):
        found = choices(node, scope, more)
        return found is not None and all(
            plain_text(value, owner, imports, callers, more) for value, owner in found
        )
    return False


def _plain_part(
    part: ast.expr, scope: Scope, imports: Mapping[str, str], callers: Callers | None, depth: int
) -> bool:
    """`plain_text` of a part of an f-string: its literal text, or a field of a plain
    value with no conversion and no format spec."""
    if isinstance(part, ast.Constant):
        return plain_text(part, scope, imports, callers, depth)
    return (
        isinstance(part, ast.FormattedValue)
        and part.conversion == -1
        and part.format_spec is None
        and plain_text(part.value, scope, imports, callers, depth)
    )


def _plain_call(
    node: ast.Call, scope: Scope, imports: Mapping[str, str], callers: Callers | None, depth: int
) -> bool:
    """`plain_text` of a call of one argument: `str()` of a plain value, or a `join` of a
    list of plain values with a plain separator."""
    (argument,) = node.args
    if isinstance(node.func, ast.Name) and node.func.id == "str":
        return plain_text(argument, scope, imports, callers, depth)
    if isinstance(node.func, ast.Attribute) and node.func.attr == "join":
        parts = argument.elts if isinstance(argument, (ast.List, ast.Tuple)) else None
        return parts is not None and all(
            plain_text(p, scope, imports, callers, depth) for p in [node.func.value, *parts]
        )
    return False


def _direct_evidence(node: ast.expr, scope: Scope, imports: Mapping[str, str]) -> str:
    """The sources that show in the expression itself: argv, environ, input, config..."""
    found = _source_read(node, imports)
    if not found and isinstance(node, ast.Call):
        found = _source_called(node, imports)
    return found


def _source_read(node: ast.expr, imports: Mapping[str, str]) -> str:
    """`_direct_evidence` of what the expression reads: `sys.argv`, `os.environ[...]`,
    `sys.stdin`, a request's parts, a configuration's keys."""
    target = node.value if isinstance(node, (ast.Subscript, ast.Attribute)) else node
    name = qualname(target, imports) or ""
    if name == "sys.argv":
        return "it comes from the command line (`sys.argv`)"
    if name in _ENVIRONMENT:
        return f"it comes from the environment (`{name}`)"
    if name == "sys.stdin" or name.startswith("sys.stdin."):
        return "it is read from standard input (`sys.stdin`)"
    asked = isinstance(node, ast.Attribute) and node.attr in _REQUEST_PARTS
    if name.startswith("flask.request.") or name == "flask.request" and asked:
        return "it comes from an HTTP request (`request`)"
    if isinstance(node, ast.Attribute) and node.attr in _REQUEST_OBJECT_PARTS:
        receiver = ast.unparse(node.value)
        if receiver in ("request", "self.request"):
            return f"it comes from an HTTP request (`{receiver}.{node.attr}`)"
    if isinstance(node, ast.Subscript) and _CONFIG_NAMES.search(_name(node.value)):
        return f"it comes from configuration (`{_name(node.value)}[...]`)"
    return ""


def _source_called(node: ast.Call, imports: Mapping[str, str]) -> str:
    """`_direct_evidence` of what the call returns: the environment's, configuration's,
    input's, the network's or the command line's text."""
    called = qualname(node.func, imports) or ""
    last = _name(node.func)
    if called in _ENVIRONMENT_CALLS:
        return f"it comes from the environment (`{called}`)"
    if called in _CONFIG_CALLS:
        return f"it comes from configuration (`{called}`)"
    if called.startswith(_HTTP_CLIENTS):
        return f"it is read from the network (`{called}`)"
    if isinstance(node.func, ast.Name) and last in ("input", "raw_input") and last not in imports:
        return f"it is read from input (`{last}()`)"
    if last in ("recv", "recvfrom", "recv_into"):
        return f"it is read from the network (`.{last}()`)"
    if last in _CLI_PARSERS:
        return f"it is a command-line option (`{last}()`)"
    if (
        last == "get"
        and isinstance(node.func, ast.Attribute)
        and _CONFIG_NAMES.search(_name(node.func.value))
    ):
        return f"it comes from configuration (`{_name(node.func.value)}.get`)"
    return ""


def _parameter(
    node: ast.Name,
    scope: Scope,
    imports: Mapping[str, str],
    depth: int,
    seen: dict[int, int],
    callers: Callers | None,
) -> str:
    """A parameter of a public function: its callers decide the value.

    Where the file itself calls a function of its module (`convert(out=args.out)`), what
    those calls pass is the evidence, and a file whose calls pass only its own values
    (`render("/tmp/x.mp3")`) shows none, unless those calls are only examples of use at
    its top level. A function the file never calls is called from outside: its parameter
    is outside data, unless its default shows it holds a quantity. A method's calls
    through `self` in its class are read the same way (round z: `self.etx_extract(host)`
    only ever given a literal address); a method the file calls only through objects it
    cannot follow keeps its parameters as evidence."""
    owner = scope.owner(node.id)
    if owner is None or not owner.public or node.id not in owner.arguments:
        return ""
    if node.id in ("self", "cls") or owner.function is None:
        return ""
    if _parametrized(owner, node.id, imports):
        return ""  # pytest calls it with the values the file lists in the decorator
    route = _route(owner)
    if route is not None and node.id not in ("request", "req"):
        return f"it comes from an HTTP request (a parameter of the route `{route}`)"
    parameter = f"{_PARAMETER} `{owner.function}`"
    default = callers.default(owner, node.id) if callers is not None else None
    if _own_kind(owner, node.id, default, imports):
        parameter = ""  # its callers give what its default is: a number, `"500k"`
    module_function = owner.parent is not None and owner.parent.parent is None
    sites = callers.of(owner.function) if callers is not None and module_function else []
    if not sites:
        if callers is None or module_function:
            return parameter
        return _passed_by_self(owner, node.id, imports, depth, seen, callers, parameter)
    return _passed_by_calls(owner, node.id, sites, imports, depth, seen, callers, parameter)


def _passed_by_calls(
    owner: Scope,
    name: str,
    sites: list[tuple[ast.Call, Scope]],
    imports: Mapping[str, str],
    depth: int,
    seen: dict[int, int],
    callers: Callers | None,
    parameter: str,
) -> str:
    """`_parameter` of a module's function, by what the file's calls of it (`sites`) pass."""
    examples: list[int] = []
    passing = 0
    for call, site_scope in sites:
        argument = argument_for(call, owner, name)
        if argument is UNKNOWN:
            return parameter  # `f(*args)`: the file does not show what it passes
        if argument is None:
            continue  # the default
        found = evidence(argument, site_scope, imports, depth + 1, seen, callers)
        if found:
            return f"{found}, passed to `{owner.function}()` on line {call.lineno}"
        passing += 1
        # `main` is the program's entry: its `__main__` call is the program's own run.
        if owner.function != "main" and _example(argument, site_scope):
            examples.append(call.lineno)
    if examples and len(examples) == passing and parameter:
        return f"{parameter}{_EXAMPLE} {', '.join(map(str, examples))})"
    return ""


def _passed_by_self(
    owner: Scope,
    name: str,
    imports: Mapping[str, str],
    depth: int,
    seen: dict[int, int],
    callers: Callers,
    parameter: str,
) -> str:
    """`_parameter` of a method, by what its class's own calls `self.NAME(...)` pass."""
    passed = callers.passed(owner, name, every=True)
    if not passed:
        return parameter
    for argument, site_scope in passed:
        found = evidence(argument, site_scope, imports, depth + 1, seen, callers)
        if found:
            return f"{found}, passed to `{owner.function}()` on line {argument.lineno}"
    return ""


def _route(owner: Scope) -> str | None:
    """The path of the HTTP route `owner` handles, by its decorator (`@app.route("/x")`,
    `@router.post("/items/{item}")`); None when it handles none."""
    for decorator in owner.decorators:
        if (
            isinstance(decorator, ast.Call)
            and isinstance(decorator.func, ast.Attribute)
            and decorator.func.attr in _ROUTE_DECORATORS
            and decorator.args
            and isinstance(decorator.args[0], ast.Constant)
            and isinstance(decorator.args[0].value, str)
            and decorator.args[0].value.startswith("/")
        ):
            return decorator.args[0].value
    return None


def _parametrized(owner: Scope, name: str, imports: Mapping[str, str]) -> bool:
    """Whether `@pytest.mark.parametrize("name, other", [...])` gives the values of the
    parameter `name` of `owner`'s function: the file's own."""
    for decorator in owner.decorators:
        if not isinstance(decorator, ast.Call) or not decorator.args:
            continue
        if not (qualname(decorator.func, imports) or "").endswith("mark.parametrize"):
            continue
        names = decorator.args[0]
        listed: list[object] = []
        if isinstance(names, ast.Constant) and isinstance(names.value, str):
            listed = [n.strip() for n in names.value.split(",")]
        elif isinstance(names, (ast.List, ast.Tuple)):
            listed = [e.value for e in names.elts if isinstance(e, ast.Constant)]
        if name in listed:
            return True
    return False


# A number with its unit, as a default of a setting: `"500k"`, `"1.5G"`, `"30s"`, `"90%"`.
_QUANTITY = re.compile(r"[0-9]+(?:\.[0-9]+)?[A-Za-z%]{0,3}\Z")


def quantity(default: ast.expr | None) -> bool:
    """Whether a parameter's default shows it holds a quantity, one safe word: a number,
    or a number with its unit (`video_bitrate="500k"`). Its callers pass the same kind
    of value; a path or a name as default (`out="/srv/x"`) shows no such thing."""
    if not isinstance(default, ast.Constant) or isinstance(default.value, bool):
        return False
    value = default.value
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, str) and _QUANTITY.match(value) is not None


def _own_kind(
    owner: Scope, name: str, default: ast.expr | None, imports: Mapping[str, str]
) -> bool:
    """Whether the function's own default shows its parameter holds a value of the kind
    the program makes itself, not a path or name from outside: a quantity, or `None`
    that the function replaces with a name it makes of literals and numbers (`if name is
    None: name = "talk" + str(randint(100, 999)) + ".mp3"`), as callers name it too."""
    if quantity(default):
        return True
    if not (isinstance(default, ast.Constant) and default.value is None):
        return False
    made = [v for v in owner.bindings.get(name, []) if v is not None]
    return bool(made) and all(_made_here(v, owner, imports, 0) for v in made)


def _made_here(node: ast.expr, scope: Scope, imports: Mapping[str, str], depth: int) -> bool:
    """Text the program makes of literals and safe values alone."""
    if depth > MAX_DEPTH or isinstance(node, LoopValue):
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, int, float))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return all(_made_here(p, scope, imports, depth + 1) for p in (node.left, node.right))
    if isinstance(node, ast.JoinedStr):
        return all(
            _made_here(p.value, scope, imports, depth + 1)
            for p in node.values
            if isinstance(p, ast.FormattedValue)
        )
    return provably_safe(node, scope, imports)


def _example(argument: ast.expr, scope: Scope) -> bool:
    """A call at the module's top level (bare or under `if __name__ == "__main__":`) with
    a literal string: a sample input written in to show the function at work, as the
    other modules that import a public function are not in sight."""
    if scope.parent is not None:
        return False
    if isinstance(argument, ast.Name):  # `sample = """..."""` then `warmup(sample)`
        owner = scope.owner(argument.id)
        values = owner.bindings[argument.id] if owner is not None else []
        return bool(values) and all(_literal(v) for v in values)
    return _literal(argument)


def _literal(value: ast.expr | None) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, str)


def example_only(evidence: str) -> bool:
    """Whether the evidence is a public function's parameter whose only calls in the file
    are examples of use with a literal (`warmup("/data/a")` at the top level)."""
    return only_a_parameter(evidence) and _EXAMPLE in evidence


def shell_text(
    node: ast.expr,
    scope: Scope,
    imports: Mapping[str, str],
    depth: int = 0,
    seen: set[int] | None = None,
    callers: Callers | None = None,
) -> str:
    """Why `node` is meant for the shell to read as shell text; "" if it is not."""
    seen = set() if seen is None else seen
    if depth > MAX_DEPTH or id(node) in seen:
        return ""
    seen.add(id(node))
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _shell_constant(node.value)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and callers is not None
        and callers.quotes_its_result(node.func.id)
    ):
        return f"`{node.func.id}()` returns it quoted for the shell"
    if _SHELL_NAMES.search(_name(node)):
        return f"its name `{_name(node)}` says it holds shell words"
    key = _key(node)
    if _SHELL_NAMES.search(key):
        return f"its key `{key}` says it holds shell words"
    if isinstance(node, ast.Name):
        for value, owner in _bound(node, scope):
            if not isinstance(value, LoopValue):
                step = 0 if isinstance(value, ast.Name) else 1  # as in `evidence`
                found = shell_text(value, owner, imports, depth + step, seen, callers)
                if found:
                    return found
        return ""
    for part in _parts(node, imports):
        found = shell_text(part, scope, imports, depth + 1, seen, callers)
        if found:
            return found
    return ""


def _shell_constant(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("-") or " -" in stripped:
        return "it is an option string"
    if text[:1].isspace() or text[-1:].isspace():
        return "it is built with blanks that separate shell words"
    if _OPERATORS.search(text):
        return "it holds shell operators"
    if "'" in text or '"' in text:
        return "it carries its own shell quotes"
    if stripped.startswith("~"):
        return "it starts with `~` for the shell to expand"
    if "$" in text:
        return "it holds `$` for the shell to expand"
    if _GLOB.search(text):
        return "it is a glob for the shell to expand"
    return ""
