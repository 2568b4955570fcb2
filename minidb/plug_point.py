"""Plug points: the parts of an engine anyone may replace (the exercises' parts first of all), all plugged in one way.

A plug point is an *interface*: a subclass of ``PlugPoint`` named for what it decides, in a module of its own named
the same way, whose functions state the contract, each in one line, and raise NotImplementedError:

======================  ===================================  =========================  ========
interface               module (in minidb/)                  option                     exercise
======================  ===================================  =========================  ========
``FilterPolicy``        ``lsm/filter_policy.py``             ``filter_policy``          01
``SplitPolicy``         ``btree/split_policy.py``            ``split_policy``           02
``ChangeBufferPolicy``  ``btree/change_buffer_policy.py``    ``change_buffer_policy``   04
``TornPageRepair``      ``btree/torn_page_repair.py``        ``torn_page_repair``       05
``WalErrorHandler``     ``lsm/wal_error_handler.py``         ``on_wal_write_error``     07
``LeveledPicker``       ``lsm/leveled_picker.py``            ``compaction_picker``      08
``ScanMerge``           ``lsm/scan_merge.py``                ``merging_iterator``       09
======================  ===================================  =========================  ========

A *plug* is an instance of a class with the interface's functions (subclassing the interface is allowed, not
needed: a student's module imports nothing of minidb). The engine takes it as the option of the table, checks when it
opens that the plug has every function (``check``), and checks every answer before acting on it, so a wrong plug
fails loudly, naming itself, instead of corrupting a database. Plugs speak plain values (bytes, ints, floats, lists,
tuples, dicts), so a student's plug can run in the grader's sandbox. Where the engine has answers of its own, they
are a subclass of the interface (``DefaultSplitPolicy``), used when the option is None.
"""

from __future__ import annotations

from inspect import isfunction


class PlugPoint:
    """The base of every plug point's interface (see the module docstring).

    An interface names its option when it subclasses this one: ``class SplitPolicy(PlugPoint,
    option="split_policy")``; its public functions are the contract (``functions``)."""

    option: str = ""  # the engine option a plug of this interface is given as
    functions: tuple[str, ...] = ()  # the functions a plug must have

    def __init_subclass__(cls, option: str | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if PlugPoint in cls.__bases__:  # an interface (not an implementation of one): record its contract
            cls.option = option or ""
            cls.functions = tuple(name for name, value in vars(cls).items()
                                  if isfunction(value) and not name.startswith("_"))

    @classmethod
    def check(cls, plug, where: str = "") -> None:
        """Raise ValueError naming the option unless ``plug`` has every function of the interface."""
        for name in cls.functions:
            if not callable(getattr(plug, name, None)):
                raise ValueError(f"bad option {cls.option}={plug!r}{where}: a {cls.__name__} needs a function "
                                 f"{name}()")
