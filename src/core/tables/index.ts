/** Tables a person brings (CSV, TSV, JSON, JSON Lines, Parquet): read, typed, made a dataset. */
export * from './table';
export * from './columns';
export { looksLikeHeader, parseCsv, type HeaderChoice } from './parse-csv';
export { parseJson } from './parse-json';
export { isParquet, parseParquet } from './parse-parquet';
export { readTable, TABLE_ACCEPT } from './read-table';
export * from './table-dataset';
export * from './preview';
