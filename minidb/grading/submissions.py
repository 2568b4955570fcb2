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

``Submission.materialize(dest)`` copies (or unzips) a submission into a folder of its own, so the grader never hands
a student's code a path to the other students' files.
"""

from __future__ import annotations

import re
import shutil
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

MAX_UNZIPPED_BYTES = 50 * 2**20  # a zip expanding past this is refused (a zip bomb, or not a code submission)
CANVAS_NAME = re.compile(r"^(?P<login>[a-z0-9]+?)(?P<late>_late)?_(?P<user>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
CANVAS_RESUBMISSION = re.compile(r"-\d+(?=\.[^.]+$)")  # bloom-1.py: Canvas numbers a file handed in again
GRADESCOPE_METADATA = "submission_metadata.yml"


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
        """Copy (or unzip) the submission into the new folder ``dest``; the path to grade (a folder or a .py)."""
        dest.mkdir(parents=True)
        if len(self.paths) == 1 and not self.names:
            source = self.paths[0]
            if source.is_dir():
                shutil.copytree(source, dest, dirs_exist_ok=True, symlinks=False)
                return dest
            if source.suffix == ".zip":
                return extract_zip(source, dest)
            shutil.copyfile(source, dest / source.name)
            return dest / source.name
        for source, name in zip(self.paths, self.names or [p.name for p in self.paths]):
            if source.suffix == ".zip":
                extract_zip(source, dest)
            else:
                shutil.copyfile(source, dest / name)
        return dest

    def submitted_time(self) -> datetime:
        """When it was handed in: the export's time, else the newest modification time of its files (UTC)."""
        if self.submitted is not None:
            return self.submitted
        files = [p for path in self.paths for p in ([path, *path.rglob("*")] if path.is_dir() else [path])]
        newest = max(p.stat().st_mtime for p in files)
        return datetime.fromtimestamp(newest, timezone.utc)


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
