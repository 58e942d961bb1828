"""The two held-out sets against everything trained on (nbs/07d_broadtasks.ipynb, nbs/07e_noveltasks.ipynb): the
new-kinds family shares no kind with any training kind (the workspace family's six and the sixteen breadth kinds) and
no content with any training task (content key, instruction words, a file's bytes); it is all held out and no
training resolver finds it; the breadth kinds are all training and leave the workspace family's 59 held-out tasks as
they were; and a sample of each passes the trial matrix (one task per new kind and level; one per breadth kind)."""
import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest

from harness_adapters import broadtasks, noveltasks, workspacetasks as ws
from harness_adapters.tasks import split_leaks
from harness_adapters.taskspecs import TaskSpecError, resolve_tasks
from harness_adapters.verifiers import check_task


@pytest.fixture(scope="module")
def sets():
    train = resolve_tasks("workspace", split="train", check=False)
    return train, resolve_tasks("workspace", split="heldout", check=False), resolve_tasks("novel", check=False)


def test_new_kinds_are_new(sets):
    train, _, novel = sets
    trained_kinds = {t.tags[1] for t in train}
    assert trained_kinds == set(ws.KINDS) | set(broadtasks.KINDS) and len(trained_kinds) >= 20
    assert {t.tags[1] for t in novel} == set(noveltasks.KINDS) and not trained_kinds & set(noveltasks.KINDS)


def test_novel_is_held_out_with_no_shared_content(sets):
    train, _, novel = sets
    assert len(novel) >= 30 and {(t.family, t.split) for t in novel} == {("novel", "heldout")}
    assert split_leaks(train + novel) == []                       # no content key, instruction or file shared
    with pytest.raises(TaskSpecError): resolve_tasks("novel", split="train", check=False)
    assert "novel" not in {t.family for t in resolve_tasks("heldout", check=False)}   # "heldout" means what it meant


def test_breadth_is_training_and_leaves_the_held_out_set(sets):
    train, held, _ = sets
    broad = [t for t in train if t.source == "broad"]
    assert len(broad) == 16 * 3 * broadtasks.PER_CELL and all(t.id.startswith("wb-") for t in broad)
    assert len(held) == 59 and all(t.id.startswith("ws-") for t in held)
    assert len([t for t in train if t.source == "workspace"]) == 229
    assert split_leaks(train + held) == []
    ids = hashlib.sha256(" ".join(t.id for t in held).encode()).hexdigest()[:12]
    assert ids == HELD_IDS, ids                                     # the same 59 tasks as every earlier evaluation


HELD_IDS = "c77874ef52a9"   # the ids of runs/tiny-agent/eval-heldout/config.json's 59 tasks


@pytest.mark.parametrize("which", ["novel", "broad"])
def test_sample_passes_trial_matrix(sets, which):
    train, _, novel = sets
    pool = novel if which == "novel" else [t for t in train if t.source == "broad"]
    cells = {}
    for t in sorted(pool, key=lambda t: bool(t.shortcut)):         # a task without the shortcut where the cell has one
        cells.setdefault((t.tags[1], t.difficulty) if which == "novel" else t.tags[1], t)
    with ThreadPoolExecutor(2) as pool_: checks = list(pool_.map(check_task, cells.values()))
    bad = [(c.task_id, c.reasons) for c in checks if not c.passed]
    assert not bad and len(checks) == (18 if which == "novel" else 16), bad
