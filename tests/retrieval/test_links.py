"""Code links versus paper pages: "does it have code?" must never answer with the paper."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrieval.links import code_links, is_code_link, link_lines
from tests.budgets import examples

PAPER_PAGES = (
    "https://openreview.net/forum?id=MfiK69Ga6p",
    "https://openreview.net/pdf?id=MfiK69Ga6p",
    "https://openreview.net/pdf/e92f71b36bf501a4596d0b0a2285f14e5d15d076.pdf",
    "https://arxiv.org/abs/2401.12345",
    "https://arxiv.org/pdf/2401.12345v2.pdf",
    "https://export.arxiv.org/abs/2401.12345",
    "https://doi.org/10.1145/3580305.3599256",
    "https://proceedings.mlr.press/v235/wang24a.html",
    "https://proceedings.neurips.cc/paper_files/paper/2023/hash/abc-Abstract-Conference.html",
    "https://aclanthology.org/2024.acl-long.1/",
    "https://example.org/papers/ours.pdf",
)
CODE = (
    "https://github.com/ahans30/Binoculars",
    "https://gitlab.com/group/project",
    "https://bitbucket.org/team/repo",
    "https://huggingface.co/datasets/org/data",
    "https://www.github.com/x/y",
    "https://gist.github.com/x/1",
)


@pytest.mark.parametrize("url", PAPER_PAGES)
def test_a_paper_page_is_not_code_even_when_the_abstract_writes_it(url: str) -> None:
    assert not is_code_link(url)
    assert not is_code_link(url, f"The full version is at {url} .")


@pytest.mark.parametrize("url", CODE)
def test_code_hosts_are_code_wherever_the_link_came_from(url: str) -> None:
    assert is_code_link(url)


def test_another_page_is_a_project_page_only_when_the_abstract_writes_it() -> None:
    page = "https://sim2reason.github.io/"
    assert is_code_link(page, "We release everything at https://sim2reason.github.io.")
    assert not is_code_link(page, "An abstract without links.")
    assert not is_code_link(page)


def test_code_links_keeps_the_order_and_drops_the_forum_link() -> None:
    abstract = "Code available at https://github.com/ahans30/Binoculars."
    urls = ("https://openreview.net/forum?id=axl3FAkpik", "https://github.com/ahans30/Binoculars")
    assert code_links(urls, abstract) == ("https://github.com/ahans30/Binoculars",)
    assert code_links(("https://openreview.net/forum?id=MfiK69Ga6p",), "No links here.") == ()


@given(st.text(max_size=80), st.text(max_size=200))
@settings(max_examples=examples(200))
def test_any_text_is_answered_without_raising(url: str, abstract: str) -> None:
    assert isinstance(is_code_link(url, abstract), bool)


def test_link_lines_name_repositories_code_and_other_pages_project_pages() -> None:
    assert link_lines(["https://github.com/a/b"]) == ("Code: https://github.com/a/b",)
    assert link_lines(["https://a.github.io/p", "https://huggingface.co/m", "https://x.org/"]) == (
        "Code: https://huggingface.co/m",
        "Project pages: https://a.github.io/p  https://x.org/",
    )
    assert link_lines([]) == ()
