"""The sandbox's inside: the only process that runs a student's code during untrusted grading.

``sandbox.py`` starts this file as a script (``python -I sandbox_server.py MODULE SOURCE IN_FD OUT_FD``), under a user id of its
own when the grader is root, with limits on memory, CPU, processes and file size. It imports the student's module
and then serves requests from the grading process, one at a time, over two pipes (the file descriptors IN_FD and OUT_FD):
"get this attribute", "call this object with these arguments", "give me len() of it". It needs nothing but the
standard library, so it can run with Python's isolated mode and without the grader's packages on its path.

Wire format: each message is a 4-byte big-endian length and a ``marshal``-ed value. ``marshal`` only builds plain
values (numbers, strings, bytes, and lists, tuples, dicts and sets of them): unlike ``pickle``, reading a message
can never run code, which matters on the grader's side, where the messages come from the student's process.

A value that is not plain (an object of the student's class, a function) stays here: the reply carries a *handle*,
a number the grader uses to name it in later requests.

Requests: ``(op, handle, name, args, kwargs)``, with handle 0 the module. Replies: ``("ok", value)`` or
``("err", exception type name, message, traceback of the student's code)``. A value is ``("v", plain)`` or
``("h", handle, type name)``; arguments are encoded the same way (plus ``("s", (start, stop, step))`` for a slice
and ``("l" or "t", [values])`` for a list or tuple holding handles), so the grader can pass back a handle it got.

When a test's time runs out, the grader sends ``SIGUSR1`` before it ends this process: ``faulthandler`` then prints
where each thread was to this process's output (the grader reads the lines of the student's files from it), even in
the middle of a loop that never returns to Python's own signal handling.
"""

import faulthandler
import marshal
import os
import signal
import struct
import sys
import traceback

HEADER = struct.Struct(">I")
PLAIN_SCALARS = (type(None), bool, int, float, complex, str, bytes)
LIVE = (list, dict, set, bytearray)  # mutable attributes travel as handles, so changing them in place works
TRACEBACK_LIMIT = 4000  # characters of the student's traceback sent back


def read_exactly(fd, n):
    """``n`` bytes from ``fd``, or None at end of file."""
    __tracebackhide__ = True  # pytest: a test interrupted while waiting here shows its own line, not this one
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(fd):
    """The next message from ``fd``, or None when the grader closed the pipe."""
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    body = read_exactly(fd, HEADER.unpack(header)[0])
    return None if body is None else marshal.loads(body)


def send(fd, message):
    """Write one message to ``fd``."""
    body = marshal.dumps(message)
    view = memoryview(HEADER.pack(len(body)) + body)
    while view:
        view = view[os.write(fd, view):]


def is_plain(value):
    """Whether ``value`` is made only of marshal's plain types (numpy scalars count, as their Python value)."""
    if isinstance(value, PLAIN_SCALARS):
        return True
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(is_plain(k) and is_plain(v) for k, v in value.items())
    return False


def plain_copy(value):
    """``value`` with numpy scalars and bytearrays turned into Python's own types, or None if it is not plain."""
    if type(value).__module__ == "numpy" and hasattr(value, "item") and getattr(value, "ndim", None) == 0:
        return value.item()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return value


class Server:
    """The student's module and every object handed out so far, by handle."""

    def __init__(self, module):
        self.objects = {0: module}
        self.handles = {id(module): 0}  # the same object always gets the same handle

    def encode(self, value, live=False):
        """A reply value: plain as is, otherwise (or a mutable attribute when ``live``) a new handle."""
        value = plain_copy(value)
        if not (live and isinstance(value, LIVE)) and is_plain(value):
            return ("v", value)
        handle = self.handles.get(id(value))
        if handle is None:
            handle = self.handles[id(value)] = len(self.objects)
            self.objects[handle] = value
        return ("h", handle, type(value).__name__)

    def decode(self, value):
        """An argument from the grader: a plain value, a handle, a slice, or a list or tuple of those."""
        tag = value[0]
        if tag == "v":
            return value[1]
        if tag == "h":
            return self.objects[value[1]]
        if tag == "s":
            return slice(*value[1])
        items = [self.decode(v) for v in value[1]]
        return items if tag == "l" else tuple(items)

    def handle(self, request):
        """Run one request and return its reply value."""
        op, handle, name, args, kwargs = request
        target = self.objects[handle]
        args = [self.decode(a) for a in args]
        kwargs = {k: self.decode(v) for k, v in kwargs.items()}
        if op == "getattr":
            return self.encode(getattr(target, name), live=True)
        if op == "setattr":
            setattr(target, name, args[0])
            return ("v", None)
        if op == "call":
            return self.encode(target(*args, **kwargs))
        if op == "getitem":
            return self.encode(target[args[0]], live=True)
        if op == "setitem":
            target[args[0]] = args[1]
            return ("v", None)
        if op == "len":
            return ("v", int(len(target)))
        if op == "bool":
            return ("v", bool(target))
        if op == "iter":
            return ("v", [self.encode(v) for v in target])
        if op == "contains":
            return ("v", bool(args[0] in target))
        if op == "repr":
            if handle == 0:  # not the module's repr, which shows where the sandbox keeps the student's copy
                return ("v", f"<module {target.__name__!r}>")
            return ("v", str(repr(target)))
        if op == "str":
            return ("v", str(target))
        if op == "value":
            copy = plain_copy(target)
            return ("v", copy) if is_plain(copy) else ("h", handle, type(target).__name__)
        raise ValueError(f"unknown sandbox request {op!r}")


def student_traceback(error):
    """The traceback of ``error`` without this file's frames: what the student's code did."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename != __file__]
    text = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(error), error))
    return text[-TRACEBACK_LIMIT:]


def error_reply(error):
    return ("err", type(error).__name__, str(error)[-TRACEBACK_LIMIT:], student_traceback(error))


def load(module_name, source):
    """Import ``source`` (a .py file or a package's __init__.py) as ``module_name``, its folder on the path."""
    import importlib.util

    is_package = os.path.basename(source) == "__init__.py"
    folder = os.path.dirname(os.path.dirname(source) if is_package else source)
    sys.path.append(folder)  # appended: a student's random.py must not replace the standard module
    spec = importlib.util.spec_from_file_location(
        module_name, source, submodule_search_locations=[os.path.dirname(source)] if is_package else None
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def main():
    module_name, source, requests, replies = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    faulthandler.register(signal.SIGUSR1, all_threads=False)  # where the code was when its time ran out
    try:
        server = Server(load(module_name, source))
    except BaseException as e:  # noqa: BLE001 - a SystemExit at import is a submission error like any other
        send(replies, error_reply(e))
        return
    send(replies, ("ok", ("v", None)))
    while True:
        request = receive(requests)
        if request is None:
            return
        try:
            reply = ("ok", server.handle(request))
        except BaseException as e:  # noqa: BLE001 - whatever the student's code raises goes back as the answer
            reply = error_reply(e)
        try:
            send(replies, reply)
        except ValueError as e:  # marshal refused a value nested too deep, say
            send(replies, error_reply(e))


if __name__ == "__main__":
    main()
