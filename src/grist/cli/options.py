"""Options ``grist extract`` and ``grist batch`` share: inputs, output switches, worker count.

Kept apart from both commands so that ``grist extract`` on one page does not import the batch
executor to read its options."""

from __future__ import annotations

import argparse

from grist.batch.cores import default_jobs
from grist.cli.values import COUNT
from grist.errors import GristError
from grist.io.sources import read_list


# switches of ``grist extract`` and ``grist batch``: the Extractor field each turns on, its help
OUTPUT_SWITCHES: dict[str, str] = {
    "links": "keep links, with absolute URLs (markdown, html, xml)",
    "images": "keep images, with absolute URLs (markdown, html, xml)",
    "with_metadata": "the page's metadata: a front-matter header in text and markdown, a "
                     "metadata field in batch records",
    "explain": "json: every block's full reason, structure and feature values",
    # the text is the article's body; these put the blocks of other roles into it (methods that
    # name roles, such as auto; the others are unaffected)
    "with_title": "also the article's title and subtitle (dek)",
    "with_byline": "also the bylines (author, date lines)",
    "with_captions": "also the captions and photo credits",
    "with_comments": "also the readers' comments",
}


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """The output switches (``--links``, ``--images``, ``--with-metadata``, ``--explain``,
    ``--with-title``, ``--with-byline``, ``--with-captions``, ``--with-comments``)."""
    for name, text in OUTPUT_SWITCHES.items():
        parser.add_argument("--" + name.replace("_", "-"), action="store_true", help=text)


def output_options(args: argparse.Namespace) -> tuple[str, ...]:
    """The output switches turned on, as Extractor field names."""
    return tuple(name for name in OUTPUT_SWITCHES if getattr(args, name))


def add_input_list_option(parser: argparse.ArgumentParser) -> None:
    """``-i FILE`` (shared with ``grist extract``): inputs listed in a file."""
    parser.add_argument(
        "-i", "--input-list", metavar="FILE", action="append", default=[],
        help="a file listing inputs (URLs or paths), one per line (- for stdin; # comments)")


def named_inputs(args: argparse.Namespace, kinds: str) -> list[str]:
    """The inputs named on the command line and in ``-i`` lists; GristError when none."""
    inputs = list(args.inputs)
    for location in args.input_list:
        inputs += read_list(location)
    if not inputs:
        raise GristError(f"no input: give {kinds}, or -i FILE")
    return inputs


def add_executor_options(parser: argparse.ArgumentParser, default: str = "every core") -> None:
    """``-j`` (shared with ``grist extract``, whose default differs: say it in ``default``)."""
    parser.add_argument("-j", "--jobs", type=COUNT, metavar="N", default=None,
                        help=f"worker processes (default: {default}, here {default_jobs()})")
