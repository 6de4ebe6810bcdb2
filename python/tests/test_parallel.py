"""`map_parallel` (behind `run_many`): results in order, failures raised, and the progress bar
`lossless reproduce` shows on a terminal."""

import io
import sys
import time

import pytest

from lossless.parallel import map_parallel, showing_progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def slow_square(x):
    # The first item finishes last: results still come back in the items' order.
    time.sleep(0.2 if x == 3 else 0)
    return x * x


def test_results_keep_the_items_order_and_a_failure_is_raised():
    assert map_parallel(slow_square, [3, 1, 2], jobs=2) == [9, 1, 4]

    def fail_on_two(x):
        if x == 2:
            raise ValueError("two")
        return x

    with pytest.raises(ValueError, match="two"):
        map_parallel(fail_on_two, [1, 2, 3], jobs=2)


@pytest.mark.parametrize("jobs", [0, -1, 1.5, "2"])
def test_a_count_of_jobs_that_is_not_positive_is_refused_naming_it(jobs):
    # Before, 0 meant one per core and -1 reached the executor ("max_workers must be greater than 0").
    with pytest.raises(ValueError, match=f"jobs: give a positive number of simulations at once, got {jobs!r}"):
        map_parallel(slow_square, [1], jobs=jobs)


def test_a_bar_counts_finished_items_on_a_terminal_only_within_showing_progress(monkeypatch):
    shown = Terminal()
    monkeypatch.setattr(sys, "stderr", shown)
    with showing_progress("ib-t42"):
        assert map_parallel(slow_square, [3, 1, 2], jobs=2) == [9, 1, 4]
    assert "ib-t42" in shown.getvalue() and "3/3" in shown.getvalue(), shown.getvalue()

    plain = Terminal()
    monkeypatch.setattr(sys, "stderr", plain)
    map_parallel(slow_square, [3, 1, 2], jobs=2)
    assert plain.getvalue() == "", "no bar outside showing_progress"

    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    with showing_progress("ib-t42"):
        map_parallel(slow_square, [3, 1, 2], jobs=2)
    assert log.getvalue() == "", "no bar when stderr is not a terminal"
