"""The screening engine on a Dask cluster, for archives past one machine.

``screen_distributed`` runs the same screen as ``tasks.screen_folder`` (same manifest, candidates,
scores, flags and output files) with its stages spread over the workers of a Dask cluster: a local
one, or any cluster reached through a scheduler address. Dask is an optional extra
(``pip install 'neardup_gui[dask]'``): importing this package does not import Dask; calling the
engine without it raises ``DaskUnavailable`` with the install command.

Modules: ``sources`` (what the workers read), ``stages`` (pure per-partition functions run on the
workers), ``engine`` (the client: planning, the Dask graph, progress, outputs).

No Qt here.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "INSTALL_HINT",
    "DaskUnavailable",
    "DistributedRefused",
    "DistributedScreenError",
    "require_dask",
    "screen_distributed",
]

INSTALL_HINT = "pip install 'neardup_gui[dask]'"


class DistributedRefused(ValueError):
    """The distributed screen cannot run as asked (options, missing Dask, mismatched workers)."""


class DaskUnavailable(DistributedRefused):
    """Dask (or pyarrow) is not installed; the message says how to install it."""


class DistributedScreenError(RuntimeError):
    """The distributed screen failed while running (a worker died too often, the scheduler went
    away, a file changed under it). Nothing was written under the final output names."""


def require_dask() -> None:
    """Import Dask's distributed scheduler, dataframes and pyarrow, or say how to install them.

    Raises:
        DaskUnavailable: One of them is missing.
    """
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as exc:
        raise DaskUnavailable(
            f"the Dask engine needs Dask and pyarrow ({exc.name or exc} is not installed); "
            f"install them with: {INSTALL_HINT}"
        ) from None


def screen_distributed(*args: Any, **kwargs: Any):
    """See ``neardup_gui.distributed.engine.screen_distributed`` (imported on first call)."""
    require_dask()
    from neardup_gui.distributed.engine import screen_distributed as run

    return run(*args, **kwargs)
