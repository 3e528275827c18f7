/**
 * Fitting and applying a dataset's standardisation. The statistics come
 * from the rows a model trains on and from nowhere else: `data.split` fits
 * them on its train part and applies them to both parts; a trainer handed
 * rows still `pending` fits them on those rows; evaluation applies the
 * model's statistics to rows still `pending`. A constant column keeps a std
 * of 1, so it becomes 0 rather than NaN.
 */
import type { Dataset, FittedStandardisation, ModelValue } from './values';

/** The statistics of `columns` over the rows of `data`. */
export function fitStandardisation(
  data: Dataset,
  columns: readonly number[],
): FittedStandardisation {
  const { features, featureSize, count } = data;
  const mean = columns.map((c) => {
    let sum = 0;
    for (let r = 0; r < count; r++) sum += features[r * featureSize + c]!;
    return count > 0 ? sum / count : 0;
  });
  const std = columns.map((c, i) => {
    let sum = 0;
    for (let r = 0; r < count; r++) sum += (features[r * featureSize + c]! - mean[i]!) ** 2;
    const sd = count > 1 ? Math.sqrt(sum / count) : 0;
    return sd > 1e-12 ? sd : 1;
  });
  return { state: 'fitted', columns, mean, std, rows: count };
}

/** `data` with `stats` applied to its features (a copy; `data` is left as it was). */
export function applyStandardisation(data: Dataset, stats: FittedStandardisation): Dataset {
  const features = Float32Array.from(data.features);
  const { featureSize, count } = data;
  stats.columns.forEach((c, i) => {
    const m = stats.mean[i]!;
    const s = stats.std[i]!;
    for (let r = 0; r < count; r++) {
      const at = r * featureSize + c;
      features[at] = (features[at]! - m) / s;
    }
  });
  return { ...data, features, standardisation: stats };
}

/** Training rows, standardised on their own statistics if still pending. */
export function standardiseForTraining(data: Dataset): Dataset {
  const s = data.standardisation;
  if (s?.state !== 'pending') return data;
  return applyStandardisation(data, fitStandardisation(data, s.columns));
}

/** Rows to evaluate `model` on, with the model's statistics applied if still pending. */
export function standardiseLike(data: Dataset, model: ModelValue): Dataset {
  const s = data.standardisation;
  if (s?.state !== 'pending') return data;
  return model.standardisation ? applyStandardisation(data, model.standardisation) : data;
}
