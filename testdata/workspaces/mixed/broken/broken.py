import os


def good():
    return 1


def bad(:
    return 2


class After:
    def m(self):
        return os.sep
