"""Reads an xlsx workbook with openpyxl, the independent reader the export tests check against,
and prints it as JSON on stdout: per sheet its title, frozen cell, autofilter range, column widths
and, per row, each cell as [value, data_type, number_format]. Dates are ISO text. SpreadsheetML's
`_xHHHH_` escapes are turned back into their characters, as Excel reads them (openpyxl leaves them).

usage: python3 readXlsx.py FILE [--values-only] [--tz ZONE]
  --values-only  rows as plain values (read-only mode: for large sheets)
"""
import datetime
import json
import re
import sys

import openpyxl

ESCAPE = re.compile(r'_x([0-9A-Fa-f]{4})_')


def text(value):
    return ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value)


def plain(value):
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, str):
        return text(value)
    return value


def main():
    path = sys.argv[1]
    values_only = '--values-only' in sys.argv
    book = openpyxl.load_workbook(path, read_only=values_only)
    sheets = []
    for ws in book.worksheets:
        sheet = {'title': ws.title}
        if values_only:
            sheet['rows'] = [[plain(v) for v in row] for row in ws.iter_rows(values_only=True)]
        else:
            sheet['frozen'] = ws.freeze_panes
            sheet['filter'] = ws.auto_filter.ref
            sheet['widths'] = {k: d.width for k, d in ws.column_dimensions.items()}
            sheet['rows'] = [[[plain(c.value), c.data_type, c.number_format] for c in row] for row in ws.iter_rows()]
        sheets.append(sheet)
    json.dump({'sheets': sheets}, sys.stdout, ensure_ascii=False)


main()
