-- PDFs and XML are stored as they were issued. A PDF is compressed already, so trying to
-- compress it again (TOAST's default) only costs time on every issue: store it out of
-- line, uncompressed.
alter table invoice_files alter column content set storage external;
