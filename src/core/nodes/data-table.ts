/**
 * `data.table`: a dataset from a table the person brings — CSV or TSV, JSON
 * (an array of rows or JSON Lines) or Parquet — picked in the inspector and
 * kept in the browser by digest, like `model.onnx`'s model. The file is read
 * and parsed here, in the engine, never on the page. The output carries its
 * feature and class names, and its standardisation left pending so that it
 * is fitted on the training rows only (see catalog/standardise.ts).
 */
import { defineNodeKind } from '../catalog/kind';
import { FlowbenchError } from '../errors';
import { missingPolicies, readTable, TABLE_ACCEPT, tableToDataset, taskChoices } from '../tables';

export const dataTable = defineNodeKind({
  kind: 'data.table',
  version: 1,
  cache: 'pure',
  title: 'Table',
  category: 'data',
  description:
    'A dataset from your own table: CSV/TSV, JSON, JSON Lines or Parquet. Pick the label and feature columns; categories become one-hot features, numbers are standardised on the training rows.',
  params: {
    file: {
      type: 'file',
      accept: TABLE_ACCEPT,
      default: '',
      description: 'The table file (picked in the inspector; the flow keeps its digest).',
    },
    label: {
      type: 'string',
      default: '',
      description: 'The column to predict; blank: the last non-numeric column, else the last.',
    },
    features: {
      type: 'string',
      default: '',
      description:
        'Feature columns, comma-separated; blank: every other number, yes/no or category column.',
    },
    task: {
      type: 'enum',
      options: taskChoices,
      default: 'auto',
      description:
        'classification or regression; auto: classification for a non-numeric label or a few whole numbers.',
    },
    missing: {
      type: 'enum',
      options: missingPolicies,
      default: 'drop rows',
      description:
        'A missing feature value: drop its row, fill in the column’s mean (a category’s shares), or fail naming it.',
    },
    standardise: {
      type: 'boolean',
      default: true,
      description: 'Scale numeric features to mean 0, std 1, with statistics of the training rows.',
    },
    header: {
      type: 'enum',
      options: ['auto', 'yes', 'no'],
      default: 'auto',
      description: 'Whether the first row names the columns (CSV, TSV, JSON arrays); auto: guess.',
    },
  },
  inputs: [],
  outputs: [
    {
      name: 'dataset',
      type: 'dataset',
      description: 'The rows: features, labels (or regression targets) and their names.',
    },
  ],
  async execute(ctx) {
    const { file: digest, label, features, task, missing, standardise, header } = ctx.params;
    if (digest === '')
      throw new FlowbenchError('node-input', {
        problem:
          "no table file: pick a CSV, JSON or Parquet file for param 'file' in the inspector",
      });
    const file = await ctx.readFile(digest);
    ctx.progress(0, 2);
    const table = await readTable(file.bytes, file.name, header);
    ctx.progress(1, 2);
    await ctx.checkpoint();
    const made = tableToDataset(table, {
      file: file.name,
      label,
      features,
      task,
      missing,
      standardise,
    });
    const { dataset } = made;
    ctx.log(
      `${file.name}: ${table.rowCount} rows × ${table.names.length} columns (${table.format}); ` +
        made.columns
          .map((c) => `${c.name} ${c.type}${c.missing ? ` (${c.missing} missing)` : ''}`)
          .join(', '),
    );
    ctx.log(
      `label '${made.label}' (${made.task}${dataset.classNames ? `: ${dataset.classNames.join(', ')}` : ''}); ` +
        `features ${made.features.join(', ')} → ${dataset.featureSize} values per row` +
        (made.droppedRows > 0 ? `; ${made.droppedRows} rows dropped for missing values` : ''),
    );
    ctx.progress(2, 2);
    ctx.emit('dataset', dataset);
  },
});
