"""A class's submissions as the course's tools hand them over, each turned into one folder per student.

Three layouts are recognised in a submissions folder:

* **One entry per student**: a folder, a ``.zip`` or a ``.py`` file named after the student (``alice/``,
  ``bob.zip``, ``carol.py``).
* **Canvas's "Download Submissions"**: every file is prefixed with the student's login, ``late`` if it was late,
  the Canvas user id and the submission id: ``doejane_12345_67890_bloom.py``, ``doejane_late_12345_67890_helpers.py``;
  a re-submitted file gets ``-1``, ``-2``... before its extension. Files with the same login and user id are one
  student's submission, each given back its own name (``bloom.py``, ``helpers.py``).
* **Gradescope's "Export Submissions"**: ``submission_metadata.yml`` beside one ``submission_<id>/`` folder per
  submission; the metadata names the submitters (name, student id, email) and the submission time.
* **Gradescope's autograder layout**, one folder per student: ``alice/submission/`` (the code) beside
  ``alice/submission_metadata.json`` (Gradescope's record: ``created_at``, ``users``).

A submission's time is the one the LMS or Gradescope recorded, or none: never its files' modification times, which
the student controls (``handins.py`` also takes the instructor's ``--submitted`` list).

``Submission.materialize(dest)`` copies (or unzips) a submission into a folder of its own, so the grader never hands
a student's code a path to the other students' files; the copy refuses symbolic links and other special files
(``safecopy.py``).
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .safecopy import copy_submission

MAX_UNZIPPED_BYTES = 50 * 2**20  # a zip expanding past this is refused (a zip bomb, or not a code submission)
CANVAS_NAME = re.compile(r"^(?P<login>[a-z0-9]+?)(?P<late>_late)?_(?P<user>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
CANVAS_RESUBMISSION = re.compile(r"-\d+(?=\.[^.]+$)")  # bloom-1.py: Canvas numbers a file handed in again
GRADESCOPE_METADATA = "submission_metadata.yml"  # a Gradescope export's record of every submission
AUTOGRADER_METADATA = "submission_metadata.json"  # Gradescope's record of one submission, beside submission/


@dataclass(frozen=True)
class Submission:
    """One student's submission: where its files are, and what the course's tools say about the student."""

    student: str  # the key of the student in grades: folder or file name, Canvas login, or Gradescope sid
    paths: tuple[Path, ...]  # a folder, a .zip or .py file; or several files (a Canvas download)
    names: tuple[str, ...] = ()  # the file names to give ``paths`` (Canvas files lose their prefix); "" keeps it
    name: str = ""  # the student's name, when the export says it
    email: str = ""
    student_id: str = ""  # the LMS's id (a Gradescope sid, a Canvas user id)
    submitted: datetime | None = None  # when it was handed in, when the export says it
    late: bool = False  # the export marked it late
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def path(self) -> Path:
        """The submission's single entry (a folder, .zip or .py); ValueError for a multi-file submission."""
        if len(self.paths) != 1:
            raise ValueError(f"{self.student}: a submission of {len(self.paths)} files has no single path")
        return self.paths[0]

    def materialize(self, dest: Path) -> Path:
        """Copy (or unzip) the submission into the new folder ``dest``; the path to grade (a folder or a .py).
        ValueError (``safecopy.UnsafeSubmission``) for a link or special file in it."""
        dest.mkdir(parents=True)
        if len(self.paths) == 1 and not self.names:
            source = self.paths[0]
            if source.suffix == ".zip" and not source.is_symlink():
                return extract_zip(source, dest)
            target = dest / source.name
            copy_submission(source, target)
            return dest if target.is_dir() else target
        for source, name in zip(self.paths, self.names or [p.name for p in self.paths]):
            if source.suffix == ".zip" and not source.is_symlink():
                extract_zip(source, dest)
            else:
                copy_submission(source, dest / name)
        return dest


def parse_time(text: str) -> datetime:
    """An ISO 8601 time with its timezone (``2026-12-01T23:59:00+01:00``, ``...Z``); ValueError saying so."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO time such as 2026-12-01T23:59:00+00:00") from None
    if when.tzinfo is None:
        raise ValueError(f"{text!r} has no timezone (add +00:00, say)")
    return when


def extract_zip(archive: Path, dest: Path) -> Path:
    """Extract ``archive`` into ``dest`` and return ``dest``; ValueError if it is not a safe, sane zip."""
    try:
        with zipfile.ZipFile(archive) as z:
            members = z.infolist()
            if sum(m.file_size for m in members) > MAX_UNZIPPED_BYTES:
                raise ValueError(f"{archive.name}: expands past {MAX_UNZIPPED_BYTES // 2**20} MiB")
            for m in members:
                target = (dest / m.filename).resolve()
                # A member named ../x or /x would write outside the folder ("zip slip").
                if not target.is_relative_to(dest.resolve()):
                    raise ValueError(f"{archive.name}: member {m.filename!r} points outside the archive")
            z.extractall(dest)
    except zipfile.BadZipFile as e:
        raise ValueError(f"{archive.name}: not a valid zip file ({e})") from None
    return dest


def find_submissions(folder: str | Path) -> list[Submission]:
    """The submissions in ``folder``, whichever layout it has; ValueError naming the entries on a duplicate."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(f"submissions folder {folder} does not exist or is not a folder")
    if (folder / GRADESCOPE_METADATA).is_file():
        return _gradescope(folder)
    found: dict[str, Submission] = {}
    canvas: dict[tuple[str, str], list[tuple[Path, re.Match]]] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith((".", "_")):
            continue
        match = CANVAS_NAME.match(path.name) if path.is_file() else None
        if match:
            canvas.setdefault((match["login"], match["user"]), []).append((path, match))
        elif path.is_dir() and (path / AUTOGRADER_METADATA).is_file() and (path / "submission").is_dir():
            _add(found, _autograder_layout(path), folder)
        elif path.is_dir() or path.suffix in (".zip", ".py"):
            _add(found, Submission(path.name if path.is_dir() else path.stem, (path,)), folder)
    for (login, user), files in canvas.items():
        names = tuple(CANVAS_RESUBMISSION.sub("", m["file"]) for _, m in files)
        late = any(m["late"] for _, m in files)
        _add(found, Submission(login, tuple(p for p, _ in files), names, student_id=user, late=late), folder)
    return sorted(found.values(), key=lambda s: s.student)


def _add(found: dict[str, Submission], submission: Submission, folder: Path) -> None:
    if submission.student in found:
        other = ", ".join(p.name for p in found[submission.student].paths)
        mine = ", ".join(p.name for p in submission.paths)
        raise ValueError(f"{folder}: two submissions for {submission.student!r}: {other} and {mine}")
    found[submission.student] = submission


def _autograder_layout(path: Path) -> Submission:
    """A student's folder laid out as Gradescope's /autograder: the code in submission/, the record beside it."""
    record = path / AUTOGRADER_METADATA
    try:
        metadata = json.loads(record.read_text(encoding="utf-8"))
        created = parse_time(str(metadata["created_at"]))
        users = metadata.get("users") or [{}]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{record}: not Gradescope's submission_metadata.json ({e})") from None
    return Submission(path.name, (path / "submission",), name=str(users[0].get("name") or ""),
                      email=str(users[0].get("email") or ""), submitted=created)


def _gradescope(folder: Path) -> list[Submission]:
    """The submissions of a Gradescope export, with submitters and times from its metadata."""
    import yaml

    path = folder / GRADESCOPE_METADATA
    try:
        metadata = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: not valid YAML: {e}") from None
    if not isinstance(metadata, dict):
        raise ValueError(f"{path}: expected a mapping of submission folders to their metadata")
    found: dict[str, Submission] = {}
    for key, entry in metadata.items():
        submission_dir = folder / str(key)
        if not submission_dir.is_dir() or not isinstance(entry, dict):
            raise ValueError(f"{path}: {key!r} has no folder {submission_dir.name} or no metadata")
        submitters = entry.get(":submitters") or [{}]
        first = submitters[0]
        sid = str(first.get(":sid") or "")
        created = entry.get(":created_at")
        if isinstance(created, str):
            created = datetime.fromisoformat(created)
        if isinstance(created, datetime) and created.tzinfo is None:
            created = created.replace(tzinfo=timezone.utc)
        _add(found, Submission(sid or str(key), (submission_dir,), name=str(first.get(":name") or ""),
                               email=str(first.get(":email") or ""), student_id=sid, submitted=created), folder)
    return sorted(found.values(), key=lambda s: s.student)
