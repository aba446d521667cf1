"""The job folder of grist batch: options checked before it is written, what a rerun resumes,
and what it refuses with the reason (another command, inputs of the plan gone missing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_batch import finished_two_shard_job, grist, outputs
from warc_files import page_html, response, write_warc


@pytest.mark.parametrize(("mistake", "message"), [
    (["--method", "bogus"], "unknown method 'bogus'"),
    (["--method", "auto/bogus"], "method 'auto' has no variant 'bogus'"),
    (["--model", "missing.json"], "model file not found: missing.json"),
    (["--plugin", "no_such_plugin"], "cannot import plugin module 'no_such_plugin'"),
    (["--site-aware", "--site-model", "no_such_module:Model"], "No module named 'no_such_module'"),
], ids=["method", "variant", "model", "plugin", "site-model"])
def test_a_mistyped_option_writes_nothing_and_the_corrected_command_runs(tmp_path, mistake,
                                                                         message):
    (tmp_path / "p.html").write_text(page_html(1))
    args = ["batch", str(tmp_path / "p.html"), "--out", str(tmp_path / "out"), "-q"]
    wrong = grist(*args, *mistake, cwd=tmp_path)
    assert wrong.returncode == 1 and message in wrong.stderr and "shard-" not in wrong.stderr
    assert not (tmp_path / "out").exists()
    assert grist(*args, cwd=tmp_path).returncode == 0


def test_a_job_of_which_nothing_was_extracted_is_taken_over(tmp_path):
    args = finished_two_shard_job(tmp_path)
    out = tmp_path / "out"
    for path in out.iterdir():  # as if the first run had stopped right after planning
        if path.name != "job.json":
            path.unlink()
    other = grist(*args[:-1], "lineblock")
    assert other.returncode == 0, other.stderr
    assert '"method": "lineblock"' in (out / "job.json").read_text() and len(outputs(out)) == 4
    refused = grist(*args)
    assert refused.returncode == 1
    assert "holds another job (other options: --method justext (planned: lineblock))" \
        in refused.stderr


def folder_job(tmp_path: Path, pages: int) -> tuple[Path, list[str]]:
    """A folder of ``pages`` pages extracted into ``tmp_path/out``; the folder and the command."""
    folder = tmp_path / "site"
    folder.mkdir()
    for n in range(pages):
        (folder / f"p{n}.html").write_text(page_html(n))
    args = ["batch", str(folder), "--out", str(tmp_path / "out"), "-j", "1",
            "--files-per-shard", "2", "--method", "justext"]
    assert grist(*args).returncode == 0
    return folder, args


def test_files_added_to_a_folder_are_named_and_the_planned_job_resumed(tmp_path):
    folder, args = folder_job(tmp_path, 3)
    planned = outputs(tmp_path / "out")
    (tmp_path / "out" / "shard-00001.done").unlink()  # as if killed before it finished
    (folder / "p3.html").write_text(page_html(3))
    again = grist(*args)
    assert again.returncode == 0, again.stderr
    assert again.stderr.strip().splitlines()[-1].endswith(
        f"; 1 input left out, found since the job was planned ({folder / 'p3.html'}): "
        "extract with another --out")
    assert outputs(tmp_path / "out") == planned  # every planned page once, the new one not


def test_files_of_the_plan_gone_from_the_folder_are_named_in_the_refusal(tmp_path):
    folder, args = folder_job(tmp_path, 3)
    (folder / "p0.html").unlink()
    (folder / "p5.html").write_text(page_html(5))
    refused = grist(*args)
    assert refused.returncode == 1
    assert (f"holds a job with these options whose inputs changed since it was planned: 1 no "
            f"longer found ({folder / 'p0.html'}); 1 added ({folder / 'p5.html'}). Put them "
            "back") in refused.stderr


def test_a_job_planned_with_a_warc_file_this_version_passes_over_resumes_as_planned(tmp_path):
    """Earlier versions planned a folder's WARC files under a hidden folder, which are now
    passed over like every hidden file: a job planned so, its files all there, resumes as
    planned (it was refused as having lost the file)."""
    folder, args = folder_job(tmp_path, 3)
    out = tmp_path / "out"
    hidden = folder / ".crawl" / "c.warc.gz"
    hidden.parent.mkdir()
    write_warc(hidden, [response(7)])
    job = json.loads((out / "job.json").read_text())  # as the earlier version planned it
    job["shards"].insert(0, {"id": "shard-00000", "kind": "warc", "inputs": [str(hidden)],
                             "found": [False]})
    for number, shard in enumerate(job["shards"]):
        shard["id"] = f"shard-{number:05d}"
    for path in out.glob("shard-*"):
        path.unlink()
    (out / "job.json").write_text(json.dumps(job))
    again = grist(*args)
    assert again.returncode == 0, again.stderr
    assert "no longer found" not in again.stderr and "3 results" not in again.stderr
    assert "4 pages, 4 results" in again.stderr  # the hidden WARC's page too, as planned
    hidden.unlink()  # gone for real: refused, named
    (out / "shard-00000.done").unlink()
    refused = grist(*args)
    assert refused.returncode == 1 and f"1 no longer found ({hidden})" in refused.stderr


def test_the_same_inputs_cut_into_other_shards_are_refused_with_the_reason(tmp_path):
    _, args = folder_job(tmp_path, 3)
    refused = grist(*args[:-3], "3", *args[-2:])  # --files-per-shard 3
    assert refused.returncode == 1 and "cut into other shards" in refused.stderr


def test_files_added_and_another_files_per_shard_are_refused_naming_the_planned_one(tmp_path):
    folder, args = folder_job(tmp_path, 3)
    (folder / "p3.html").write_text(page_html(3))
    refused = grist(*args[:-3], "3", *args[-2:])  # --files-per-shard 3
    assert refused.returncode == 1
    assert "cut into other shards; rerun it with --files-per-shard 2 " in refused.stderr


def test_a_job_recorded_without_its_files_per_shard_resumes_when_cut_alike(tmp_path):
    """job.json of a grist that did not note --files-per-shard: the same command resumes it."""
    _, args = folder_job(tmp_path, 3)
    out = tmp_path / "out"
    planned = outputs(out)
    job = json.loads((out / "job.json").read_text())
    del job["files_per_shard"]
    (out / "job.json").write_text(json.dumps(job))
    (out / "shard-00001.done").unlink()
    again = grist(*args)
    assert again.returncode == 0, again.stderr
    assert outputs(out) == planned


def test_a_site_model_without_site_aware_is_a_usage_error(tmp_path):
    (tmp_path / "p.html").write_text(page_html(1))
    run = grist("batch", str(tmp_path / "p.html"), "--out", str(tmp_path / "out"),
                "--site-model", "bogus")
    assert run.returncode == 2 and "--site-model needs --site-aware" in run.stderr
    assert not (tmp_path / "out").exists()


def test_checking_a_jobs_plugins_leaves_this_process_as_it_was():
    """The check imports the job's plugins here too; their methods stayed registered in the
    caller's process (and in the test run's, whose later tests listed a method its workers do
    not have)."""
    import sys

    from grist.batch.job import JobConfig
    from grist.batch.worker import check_config
    from grist.methods import available_methods

    before, imported = available_methods(), "batch_plugin" in sys.modules
    check_config(JobConfig(method="fragile", plugins=("batch_plugin",)))
    assert available_methods() == before and "fragile" not in before
    assert ("batch_plugin" in sys.modules) == imported
