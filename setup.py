"""Build hook: put the data folders inside the wheel, so an installed (non-editable) program finds
its sample corpus, icons, translations and user guide.

``resources/`` becomes the package data of ``neardup_gui.resources`` and the user guides in
``docs/`` that of ``neardup_gui.resources.docs``; ``neardup_gui.io.paths.resources_dir()`` looks
there first. Everything else about the project is declared in pyproject.toml.
"""

from setuptools import find_namespace_packages, find_packages, setup

# Each data folder is listed as a (namespace) package so that setuptools copies its files.
RESOURCE_PACKAGES = ["neardup_gui.resources"] + [
    f"neardup_gui.resources.{name}" for name in find_namespace_packages(where="resources") if name != "docs"
]

setup(
    packages=find_packages(include=["neardup_gui", "neardup_gui.*"]) + RESOURCE_PACKAGES + ["neardup_gui.resources.docs"],
    package_dir={"neardup_gui.resources": "resources", "neardup_gui.resources.docs": "docs"},
    package_data={
        **{name: ["*"] for name in RESOURCE_PACKAGES},
        "neardup_gui.resources.docs": ["USER_GUIDE*.md"],
    },
)
