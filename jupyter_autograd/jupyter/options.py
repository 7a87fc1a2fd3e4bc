"""Reading a magic's options as a shell would, with every mistake as a one-line ``UsageError``.

Option values are split and unquoted by POSIX ``shlex`` rules, so ``--gradient "torch.ones(2)
* 3"`` arrives as ``torch.ones(2) * 3``. A magic whose positional argument is a Python expression
(``%grad_fn outs["loss"]``) gets that expression as typed, quotes included; only an expression
quoted as a whole (``%grad_fn "z * 2"``) is unquoted.
"""

from __future__ import annotations

import re
import shlex

from IPython.core.error import UsageError

_SHELL_SPACE = " \t\r\n"  # shlex's whitespace
_OPTION_LIKE = re.compile(r"--[A-Za-z][\w-]*(=.*)?\Z", re.DOTALL)
EXAMPLE = '--gradient "torch.ones(2) * 3"'


def usage_error(text: str) -> UsageError:
    """A UsageError with ``text`` on one line, user-controlled parts neutralised."""
    from ..graph import safe_text  # the graph package loads on a magic's first use

    return UsageError(safe_text(" ".join(str(text).split())))


def shown(value: str, cap: int = 60) -> str:
    """A user's value quoted for a message, cut to ``cap`` characters."""
    value = value if len(value) <= cap else value[: cap - 1] + "\u2026"
    return repr(value)


def split(line: str) -> list[tuple[str, str]]:
    """Split ``line`` as a POSIX shell would: ``(value, raw text)`` per word.

    Raises:
        ValueError: an unclosed quote or a trailing backslash (shlex's messages).
    """
    words = []
    i, n = 0, len(line)
    while i < n:
        if line[i] in _SHELL_SPACE:
            i += 1
            continue
        start, quote = i, None
        while i < n:
            c = line[i]
            if quote is None:
                if c in _SHELL_SPACE:
                    break
                if c in "'\"":
                    quote = c
                elif c == "\\":
                    i += 1
            elif c == quote:
                quote = None
            elif c == "\\" and quote == '"':
                i += 1
            i += 1
        if quote is not None:
            raise ValueError("No closing quotation")
        words.append(line[start:i])
    return [(shlex.split(raw)[0], raw) for raw in words]


def _quoted_whole(raw: str) -> bool:
    """Whether ``raw`` is one quoted string and nothing else (``"z * 2"``, not ``"a"+"b"``)."""
    if len(raw) < 2 or raw[0] not in "'\"" or raw[-1] != raw[0]:
        return False
    i = 1
    while i < len(raw) - 1:
        if raw[0] == '"' and raw[i] == "\\":
            i += 1
        elif raw[i] == raw[0]:
            return False
        i += 1
    return True


def parse(func, name: str, line: str, *, expression: str | None = None):
    """Parse ``line`` for the magic ``func`` (decorated with ``magic_arguments``).

    Args:
        func: the magic method, whose ``parser`` is IPython's argparse parser.
        name: the magic as typed (``%%autograd``), for messages.
        line: the text after the magic's name.
        expression: the dest of a positional Python expression, if the magic takes one.

    Returns:
        The argparse namespace, or None when ``--help`` asked for the help (printed).

    Raises:
        UsageError: one line naming the option and the fix.
    """
    __tracebackhide__ = True
    parser = func.parser
    try:
        words = split(line)
    except ValueError as e:
        raise usage_error(
            f"{name}: cannot read the options ({e}); close the quote, e.g. {EXAMPLE}"
        ) from None
    if any(v in ("--help", "-h") for v, _ in words):
        print(parser.format_help())
        return None
    argv: list[str] = []
    expr: list[str] = []
    takes_value = {
        opt: action.nargs != 0 for action in parser._actions for opt in action.option_strings
    }
    i = 0
    while i < len(words):
        value, raw = words[i]
        if expression is None or _OPTION_LIKE.match(value):
            argv.append(value)
            # in expression mode argparse sees the options only: their values go along
            takes = takes_value.get(value.split("=", 1)[0]) and "=" not in value
            if expression is not None and takes and i + 1 < len(words):
                i += 1
                argv.append(words[i][0])
        else:
            expr.append(raw)
        i += 1
    if expr:
        text = " ".join(expr)
        if len(expr) == 1 and _quoted_whole(expr[0]):
            text = shlex.split(expr[0])[0]
        argv += ["--", text]
    try:
        return parser.parse_args(argv)
    except UsageError as e:
        msg = str(e)
        hint = f"see {name}? for the options"
        if "unrecognized arguments" in msg:
            hint += f"; quote a value that has spaces, e.g. {EXAMPLE}"
        raise usage_error(f"{name}: {msg}; {hint}") from None


def positive_int(option: str, value) -> int | None:
    """``value`` as a positive int, else a UsageError naming ``option``."""
    if value is None:
        return None
    try:
        n = int(value)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise usage_error(
            f"{option} expects a positive integer, got {shown(str(value))}; e.g. {option} 500"
        )
    return n


def names(option: str, value: str | None) -> list[str]:
    """Comma- or space-separated Python names, else a UsageError naming ``option``."""
    out = [s for s in (value or "").replace(",", " ").split() if s]
    for s in out:
        if not s.isidentifier():
            raise usage_error(
                f"{option}: {shown(s)} is not a Python name; pass the name of a tensor the "
                f"cell binds, e.g. {option} loss"
            )
    return out
